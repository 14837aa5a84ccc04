import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { runCliInMemory } from './cli-in-memory.ts';
import { makeWorkspace, type RunResult } from './workspace.ts';

/** Runs an executable of the workspace (./ralph, .ralph/validate.sh) as a user would. */
export function runFile(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RunResult> {
  const child = spawn(file, args, {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

/** A workspace initialised with `ralph init --preset spec`. */
export async function specWorkspace(): Promise<string> {
  const dir = makeWorkspace({});
  const r = await runCliInMemory(['init', '--preset', 'spec'], { cwd: dir });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return dir;
}
