import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** Where a command resolves, the way spawn finds it. */
export type ExecutableLookup = { found: true; path: string } | { found: false; detail: string };

function executableStatus(path: string): 'ok' | 'missing' | 'not-executable' {
  try {
    if (!statSync(path).isFile()) return 'not-executable';
  } catch {
    return 'missing';
  }
  try {
    accessSync(path, constants.X_OK);
    return 'ok';
  } catch {
    return 'not-executable';
  }
}

/**
 * The paths execvp tries for `command`, in order: a path (with `/`) relative to `cwd`, else the
 * command in each `PATH` entry (an empty entry is `cwd`; no PATH at all means /usr/bin:/bin).
 */
export function executableCandidates(command: string, pathEnv: string | undefined, cwd: string): string[] {
  if (command.includes('/')) return [resolve(cwd, command)];
  return (pathEnv ?? '/usr/bin:/bin').split(delimiter).map((entry) => join(resolve(cwd, entry), command));
}

/** Resolves `command` like execvp (see executableCandidates): the first executable candidate. */
export function findExecutable(command: string, pathEnv: string | undefined, cwd: string): ExecutableLookup {
  const candidates = executableCandidates(command, pathEnv, cwd);
  if (command.includes('/')) {
    const path = candidates[0] as string;
    const status = executableStatus(path);
    if (status === 'ok') return { found: true, path };
    return {
      found: false,
      detail: status === 'missing' ? `no such file: ${path}` : `not executable: ${path}`,
    };
  }
  let notExecutable: string | undefined;
  for (const path of candidates) {
    const status = executableStatus(path);
    if (status === 'ok') return { found: true, path };
    if (status === 'not-executable') notExecutable ??= path;
  }
  return {
    found: false,
    detail: notExecutable ? `${notExecutable} is not executable` : 'not on PATH',
  };
}
