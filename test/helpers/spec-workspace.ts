import { expect } from 'vitest';
import { runCliInMemory } from './cli-in-memory.ts';
import { makeWorkspace, type RunResult, startProcess } from './workspace.ts';

/** Runs an executable of the workspace (./ralph, .ralph/validate.sh) as a user would. */
export function runFile(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RunResult> {
  return startProcess(file, args, cwd, env).done;
}

/** A workspace initialised with `ralph init --preset spec`. */
export async function specWorkspace(): Promise<string> {
  const dir = makeWorkspace({});
  const r = await runCliInMemory(['init', '--preset', 'spec'], { cwd: dir });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return dir;
}
