import { isExcludedPath, parsePorcelainV2, type WorkingTreeChange } from './porcelain.ts';
import { runGit } from './run-git.ts';

/**
 * Paths Ralph never commits nor counts as changes (its runtime files), relative to `root`: a file
 * (`.ralph/state.json`) or, with a trailing `/`, a directory (`.ralph/logs/`).
 */
export interface ExcludeOptions {
  exclude: readonly string[];
}

/** `root` relative to its repository's top level, once per root (it cannot change while Ralph runs). */
const prefixes = new Map<string, Promise<string>>();
export function showPrefix(root: string): Promise<string> {
  let prefix = prefixes.get(root);
  if (prefix === undefined) {
    prefix = runGit(root, ['rev-parse', '--show-prefix']);
    prefixes.set(root, prefix);
    // A failure is not remembered: the next call asks git again.
    prefix.catch(() => prefixes.delete(root));
  }
  return prefix;
}

/**
 * `git status` of the whole repository, every untracked file listed, nothing excluded yet. No
 * rename detection (whatever `status.renames` says): a file moved shows as its deletion and its addition.
 */
export async function statusEntries(root: string): Promise<WorkingTreeChange[]> {
  return parsePorcelainV2(
    await runGit(root, ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames']),
  );
}

/** `changes` minus the excluded paths, which are relative to `root` (`prefix` is root from the top level). */
export function withoutExcluded(
  changes: readonly WorkingTreeChange[],
  prefix: string,
  exclude: readonly string[],
): WorkingTreeChange[] {
  // git reports paths from the top level; `root` may be a subdirectory of the repository.
  const fromTop = excludedFromTop(prefix, exclude);
  return changes.filter((c) => !isExcludedPath(c.path, fromTop));
}

/** The excluded paths relative to the repository's top level. */
export function excludedFromTop(prefix: string, exclude: readonly string[]): string[] {
  return exclude
    .map((e) => e.replace(/^\.\//, ''))
    .filter((e) => e.length > 0)
    .map((e) => `${prefix.replace(/\n$/, '')}${e}`);
}

/**
 * Uncommitted changes (staged, unstaged, untracked, unmerged) minus the excluded paths; the
 * paths are relative to the repository's top level, as git prints them.
 */
export async function workingTreeChanges(
  root: string,
  { exclude }: ExcludeOptions,
): Promise<WorkingTreeChange[]> {
  const [changes, prefix] = await Promise.all([statusEntries(root), showPrefix(root)]);
  return withoutExcluded(changes, prefix, exclude);
}

// `git diff` treats this id as the empty tree even when the object is not in the repository.
async function emptyTree(root: string): Promise<string> {
  return (await runGit(root, ['hash-object', '-t', 'tree', '--stdin'])).trim();
}

/**
 * Files that differ between two commits (both sides of a rename are listed), relative to the
 * repository's top level. A null side is the empty tree, i.e. "before the first commit".
 */
export async function changedFilesBetween(
  root: string,
  from: string | null,
  to: string | null,
): Promise<string[]> {
  if (from === null && to === null) return [];
  const empty = from === null || to === null ? await emptyTree(root) : '';
  const out = await runGit(root, [
    'diff',
    '--name-only',
    '-z',
    '--no-renames',
    from ?? empty,
    to ?? empty,
    '--',
  ]);
  return out.split('\0').filter((p) => p.length > 0);
}
