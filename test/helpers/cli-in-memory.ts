import { runCli } from '../../src/cli/cli-program.ts';
import type { CliIO } from '../../src/cli/io.ts';

/** What one in-process `ralph` command printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliInMemoryOptions {
  cwd: string;
  /** Added over the test process's environment (as the e2e `runRalph` does), NO_COLOR set. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `ralph ARGS` in this process through `runCli` with a memory `CliIO`: the in-process tier for
 * commands that need no process of their own (no TTY, no signals, no long-running loop).
 */
export async function runCliInMemory(
  args: readonly string[],
  options: CliInMemoryOptions,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    color: false,
    exit: (code) => {
      throw new Error(`an in-process command asked to exit the process (code ${code})`);
    },
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
