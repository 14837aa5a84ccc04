import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isNegated } from '../../config/path-patterns.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { isWithinOrEqual } from '../../sandbox/sandbox-paths.ts';

// The pure parts of gathering a sandbox policy's input: which paths each setting names. The
// effectful part (git, the file system, PATH) is sandbox-input.ts.

/**
 * The directories of the protect patterns that select a whole tree (`test/**`, `.ci/**`): made
 * read-only as directories, so a new file there is refused too, not only the files that exist.
 */
export function protectedDirs(workspace: string, globs: readonly string[]): string[] {
  return globs
    .filter((g) => !isNegated(g) && g.endsWith('/**'))
    .map((g) => g.slice(0, -3))
    .filter((dir) => dir !== '' && !/[*?[\]{}!]/.test(dir) && !dir.split('/').includes('..'))
    .map((dir) => resolve(workspace, dir));
}

/** The first word of each gate command, when it names a file of the workspace (`./check.sh`, `scripts/t`). */
export function gateCommandWords(config: RalphConfig): string[] {
  const validate = typeof config.gates.validate === 'string' ? config.gates.validate : undefined;
  return [config.gates.tests?.command, config.gates.tests?.affected, validate]
    .map((c) => (c ?? '').trim().split(/\s+/)[0] ?? '')
    .filter((w) => w !== '' && (w.includes('/') || w.includes('.')) && !w.startsWith('-'))
    .map((w) => w.replace(/^\.\//, ''));
}

/**
 * Install locations the agent needs read-only to run at all that the sandbox would hide: under
 * `home` (hidden) or under /tmp (private): node's prefix, Ralph's package, the agent CLI's package,
 * and the PATH entries there. Elsewhere the whole system is read-only already, so only these are named.
 */
export function runtimeUnderHome(home: string, candidates: readonly string[]): string[] {
  const hidden = (p: string) =>
    [home, '/tmp'].some((dir) => isWithinOrEqual(resolve(p), dir) && resolve(p) !== dir);
  return [...new Set(candidates.filter((p) => p !== '' && isAbsolute(p) && hidden(p)))];
}

/** PATH's entries (absolute ones only: a relative entry means nothing inside the sandbox). */
export function pathEntries(pathEnv: string | undefined): string[] {
  return (pathEnv ?? '').split(':').filter((p) => isAbsolute(p));
}

/** The prefix node is installed under (`<prefix>/bin/node`). */
export function nodePrefix(execPath: string): string {
  return dirname(dirname(execPath));
}

/** Git's control files in a git directory: read-only to the agent, which may still commit. */
export function gitControlFiles(gitDir: string): string[] {
  return ['hooks', 'config', 'info'].map((f) => join(gitDir, f));
}
