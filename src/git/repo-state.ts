import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { runGit, runGitRaw } from './run-git.ts';

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
