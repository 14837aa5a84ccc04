import { readdirSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { isNegated, type PathMatcher, pathMatcher, patternBase } from '../../../config/path-patterns.ts';
import { RalphError } from '../../../errors.ts';
import { RUNTIME_PATHS } from '../../../state/paths.ts';

/**
 * The most files and directories one walk (for protected files, or for `rules`) visits; every
 * iteration walks again. A walk that would go further is an error, never a silent cut: files past
 * it would look checked and not be.
 */
export const MAX_WALK = 50_000;

/**
 * Never walked: git's and dependencies' directories, and Ralph's runtime files (they change every
 * iteration). Compiled at the first walk, not when the module loads (every command that imports
 * this module would pay for picomatch's parse).
 */
let neverWalkedMatchers: Record<'root' | 'below', PathMatcher> | undefined;
function neverWalked(path: string, isDir: boolean, root: boolean): boolean {
  // Below a root, a path is asked of only once its parent was walked: its parents need no second look.
  neverWalkedMatchers ??= ((patterns) => ({
    root: pathMatcher(patterns),
    below: pathMatcher(patterns, { parentsCleared: true }),
  }))(['**/.git', '**/node_modules/', ...RUNTIME_PATHS]);
  return neverWalkedMatchers[root ? 'root' : 'below'](path, isDir);
}

/** The setting whose patterns are walked, for the error. */
export type Setting = 'gates.protect' | 'rules';

/** The patterns' base directories, none inside another ('' = the whole workspace). */
export function walkRoots(patterns: readonly string[]): string[] {
  const bases = [...new Set(patterns.filter((p) => !isNegated(p)).map(patternBase))].sort();
  return bases.filter((b) => !bases.some((o) => o !== b && (o === '' || b.startsWith(`${o}/`))));
}

/**
 * The files under the roots (workspace-relative, `/`), git-ignored ones included, and the
 * directories that cannot be listed; throws past MAX_WALK entries, naming `setting`, the root and
 * its patterns. Iterative: a deep tree cannot overflow the stack.
 */
export function walkFiles(
  workspace: string,
  roots: readonly string[],
  patterns: readonly string[],
  setting: Setting,
): string[] {
  const files: string[] = [];
  let walked = 0;
  for (const root of roots) {
    // Breadth first: the limit is met level by level, before a symlink loop gets deep.
    const todo = [root];
    for (let next = 0; next < todo.length; next++) {
      const rel = todo[next] as string;
      if (++walked > MAX_WALK) throw walkTooBig(root, patterns, setting);
      const st = statOrNone(join(workspace, rel));
      // Most roots (the default CI paths) do not exist: nothing to match against neverWalked.
      if (st === undefined || (rel !== '' && neverWalked(rel, st.isDirectory(), next === 0))) continue;
      const names = st.isDirectory() ? namesIn(join(workspace, rel)) : undefined;
      if (names) for (const name of names) todo.push(rel === '' ? name : `${rel}/${name}`);
      // A directory that cannot be listed is listed itself: what it hides still shows as a change.
      else if (st.isFile() || st.isDirectory()) files.push(rel);
    }
  }
  return files;
}

/** The entry's stat (symlinks followed), or undefined when it is gone or cannot be reached (ELOOP, EACCES). */
function statOrNone(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** A directory's entries, or undefined when it cannot be read (no permission). */
function namesIn(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

function walkTooBig(root: string, patterns: readonly string[], setting: Setting): RalphError {
  const verb = setting === 'rules' ? 'judge' : 'protect';
  const mine = patterns.filter(
    (p) => !isNegated(p) && (root === '' || `${patternBase(p)}/`.startsWith(`${root}/`)),
  );
  return new RalphError(
    'preflight',
    `${setting}: ${mine.map((p) => `'${p}'`).join(', ')} would have Ralph hash every file under ${root === '' ? 'the whole workspace' : `'${root}/'`}, more than ${MAX_WALK.toLocaleString('en-US')} files and directories; Ralph stops rather than ${verb} only part of them. Start the pattern in the directory that holds the files to ${verb} (e.g. 'tests/**' rather than '**/*.test.ts'), or move generated files out of it`,
  );
}
