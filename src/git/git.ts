import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as realSleep } from 'node:timers/promises';
import { RalphError } from '../errors.ts';
import { isExcludedPath, parsePorcelainV2, type WorkingTreeChange } from './porcelain.ts';
import { gitFailure, runGit, runGitRaw, stderrTail } from './run-git.ts';

export { isExcludedPath, parsePorcelainV2, type WorkingTreeChange } from './porcelain.ts';

/** A git operation that must be finished (or aborted) by a human before Ralph may commit. */
export type GitOperation = 'rebase' | 'merge' | 'cherry-pick' | 'revert' | 'bisect';

/** Where the repository stands: branch, commit and any operation in progress. */
export interface RepoState {
  /** Checked-out branch; null when HEAD is detached. */
  branch: string | null;
  /** HEAD commit; null before the first commit. */
  head: string | null;
  operation: GitOperation | null;
}

/**
 * Paths Ralph never commits nor counts as changes (its runtime files), relative to `root`: a file
 * (`.ralph/state.json`) or, with a trailing `/`, a directory (`.ralph/logs/`).
 */
export interface ExcludeOptions {
  exclude: readonly string[];
}

export interface PushOptions {
  remote: string;
  /** Remote branch to push HEAD to (`HEAD:refs/heads/<branch>`). */
  branch: string;
  attempts: number;
  delayMs: number;
  /** Injected for tests; defaults to a real timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Called after each failed attempt with its number (from 1) and the error. */
  onAttempt?: (attempt: number, error: RalphError) => void;
  /** Kill a push that hangs (e.g. an unreachable host) after this long; default 5 minutes. */
  timeoutMs?: number;
}

// Marker files in the git dir, checked in this order (rebase first: a conflicted rebase also has others).
const OPERATION_MARKERS: [string, GitOperation][] = [
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['MERGE_HEAD', 'merge'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
  ['BISECT_LOG', 'bisect'],
];

const FINISH_HINT: Record<GitOperation, string> = {
  rebase: 'finish it (git rebase --continue) or abort it yourself',
  merge: 'finish it (git commit) or abort it yourself (git merge --abort)',
  'cherry-pick': 'finish it (git cherry-pick --continue) or abort it yourself',
  revert: 'finish it (git revert --continue) or abort it yourself',
  bisect: 'end it yourself (git bisect reset)',
};

/** True when `root` is inside a git work tree (false outside one, in a bare repo or a missing dir). */
export async function isGitRepo(root: string): Promise<boolean> {
  const result = await runGitRaw(root, ['rev-parse', '--is-inside-work-tree']);
  return result.exitCode === 0 && result.stdout.trim() === 'true';
}

/** Branch, HEAD commit and in-progress operation of the repository at `root`. */
export async function repoState(root: string): Promise<RepoState> {
  const [gitDirOut, branchRes, headRes] = await Promise.all([
    runGit(root, ['rev-parse', '--git-dir']),
    runGitRaw(root, ['symbolic-ref', '-q', '--short', 'HEAD']),
    runGitRaw(root, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']),
  ]);
  const gitDir = resolve(root, gitDirOut.replace(/\n$/, ''));
  const marker = OPERATION_MARKERS.find(([file]) => existsSync(resolve(gitDir, file)));
  return {
    branch: branchRes.exitCode === 0 ? branchRes.stdout.trim() || null : null,
    head: headRes.exitCode === 0 ? headRes.stdout.trim() || null : null,
    operation: marker ? marker[1] : null,
  };
}

/** Why Ralph must not run in this state (an operation in progress, a detached HEAD), or undefined. */
export function describeRefusal(state: RepoState): string | undefined {
  if (state.operation) {
    return `a ${state.operation} is in progress; ${FINISH_HINT[state.operation]} before running ralph`;
  }
  if (state.branch === null) {
    const at = state.head ? `at ${state.head.slice(0, 12)}` : 'no branch checked out';
    return `HEAD is detached (${at}); check out a branch before running ralph`;
  }
  return undefined;
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

/** `git status` of the whole repository, every untracked file listed, nothing excluded yet. */
export async function statusEntries(root: string): Promise<WorkingTreeChange[]> {
  return parsePorcelainV2(await runGit(root, ['status', '--porcelain=v2', '-z', '--untracked-files=all']));
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

/**
 * Pathspecs for "the whole repository except these" (`:/` is the top level; the excludes stay
 * relative to `root`); literal, so `*` in a name is not a glob.
 */
function allExcept(exclude: readonly string[]): string[] {
  const specs = [':/'];
  for (const raw of exclude) {
    const entry = raw.replace(/^\.\//, '');
    if (entry.length === 0) continue;
    // A trailing `*` is a name prefix (see isExcludedPath); everything else is matched literally.
    specs.push(entry.endsWith('*') ? `:(exclude,glob)${entry}` : `:(exclude,literal)${entry}`);
  }
  return specs;
}

/**
 * Stages every change except the excluded paths and commits it with `message` (any number of
 * lines). Returns the new commit, or null when there was nothing to commit. Works before the
 * first commit.
 */
export async function commitAll(
  root: string,
  message: string,
  { exclude }: ExcludeOptions,
): Promise<{ commit: string | null }> {
  if (message.trim().length === 0) {
    throw new RalphError('git_commit_message', 'refusing to commit with an empty message; pass a message');
  }
  await stageAll(root, { exclude });
  const staged = await runGitRaw(root, ['diff', '--cached', '--quiet']);
  if (staged.exitCode === 0) return { commit: null };
  if (staged.exitCode !== 1) throw gitFailure(root, ['diff', '--cached', '--quiet'], staged);
  await runGit(root, ['commit', '-q', '-F', '-'], { input: message });
  return { commit: (await runGit(root, ['rev-parse', 'HEAD'])).trim() };
}

/**
 * Stages every change of the repository (untracked files included, ignored ones not) except the
 * excluded paths, which are relative to `root`.
 */
export async function stageAll(root: string, { exclude }: ExcludeOptions): Promise<void> {
  // Only exclusions that match a change: git refuses a pathspec naming an ignored path (a
  // .gitignore'd .ralph/ is common), even in an exclusion.
  const [out, prefix] = await Promise.all([
    runGit(root, ['status', '--porcelain=v2', '-z', '--untracked-files=all']),
    showPrefix(root),
  ]);
  const top = prefix.replace(/\n$/, '');
  const changed = parsePorcelainV2(out);
  const relevant = exclude.filter((e) =>
    changed.some((c) => isExcludedPath(c.path, [`${top}${e.replace(/^\.\//, '')}`])),
  );
  await runGit(root, ['add', '-A', '--', ...allExcept(relevant)]);
}

async function hasUpstream(root: string): Promise<boolean> {
  const branch = await runGitRaw(root, ['symbolic-ref', '-q', '--short', 'HEAD']);
  if (branch.exitCode !== 0) return true; // detached: there is no local branch to track anything
  const remote = await runGitRaw(root, ['config', '--get', `branch.${branch.stdout.trim()}.remote`]);
  return remote.exitCode === 0 && remote.stdout.trim().length > 0;
}

/**
 * Pushes HEAD to `<remote>/<branch>`, retrying `attempts` times `delayMs` apart; sets the
 * upstream when the current branch has none. Never rewrites anything: on failure the commits
 * stay local and the error says so.
 */
export async function pushWithRetry(root: string, options: PushOptions): Promise<void> {
  const attempts = Number.isFinite(options.attempts) ? Math.max(1, Math.floor(options.attempts)) : 1;
  const sleep = options.sleep ?? realSleep;
  const args = ['push'];
  if (!(await hasUpstream(root))) args.push('-u');
  args.push(options.remote, `HEAD:refs/heads/${options.branch}`);
  const timeoutMs = options.timeoutMs ?? 300_000;
  let lastDetail = '';
  let lastError: RalphError | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const result = await runGitRaw(root, args, { timeoutMs });
    if (result.exitCode === 0 && !result.timedOut) return;
    const tail = stderrTail(result.stderr);
    lastDetail = result.timedOut ? `timed out after ${timeoutMs} ms (${tail})` : tail;
    lastError = gitFailure(root, args, result, 'check the remote URL, network and permissions');
    options.onAttempt?.(attempt, lastError);
    if (attempt < attempts) await sleep(options.delayMs);
  }
  throw new RalphError(
    'git_push_failed',
    `git push to ${options.remote} failed after ${attempts} attempts: ${lastDetail}; ` +
      'your commits are kept locally — fix the remote and run `git push`',
    { cause: lastError },
  );
}

/** Whether `remote` is configured in the repository (`git remote get-url`). */
export async function hasRemote(root: string, remote: string): Promise<boolean> {
  const r = await runGitRaw(root, ['remote', 'get-url', remote]);
  return r.exitCode === 0 && r.stdout.trim().length > 0;
}
