import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RalphError } from '../errors.ts';
import { isAncestor } from '../git/branches.ts';
import { runGit, runGitRaw } from '../git/run-git.ts';
import { readStatus } from '../human/read-status.ts';
import {
  type ParallelState,
  parallelPaths,
  readParallelState,
  worktreePath,
} from '../state/parallel-files.ts';

export { worktreePath };

import { ralphPaths } from '../state/paths.ts';
import { ensureRuntimeIgnored } from '../state/runtime-ignore.ts';

export function worktreeBranch(name: string): string {
  return `ralph/${name}`;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function checkWorktreeName(name: string): string {
  if (!NAME.test(name) || name.includes('..'))
    throw new RalphError(
      'usage',
      `worktree name ${JSON.stringify(name)} is not usable: letters, digits, . _ - (it becomes the branch ralph/${name})`,
    );
  return name;
}

/** Who asks for the repository (`ralph run --parallel`), and how to do without one when there is a way. */
export interface RepoNeed {
  /** What needs git, as the user typed it: `ralph worktrees list`, `--worktree`. */
  needs: string;
  /** What to do outside a repository. Default: `git init` first. */
  fix?: string | undefined;
}

/**
 * The repository's top directory (worktrees are made from it), or a `not_a_git_repo` error that
 * names what needed it (`need.needs`) and what to do.
 */
export async function repoRoot(cwd: string, need: RepoNeed): Promise<string> {
  const r = await runGitRaw(cwd, ['rev-parse', '--show-toplevel']);
  if (r.exitCode !== 0)
    throw new RalphError(
      'not_a_git_repo',
      `${need.needs} needs a git repository, and ${cwd} is not in one (${need.fix ?? '`git init` first'})`,
    );
  return r.stdout.trim();
}

/**
 * The worktree for NAME on branch `ralph/NAME`: made from HEAD the first time, reused after (a
 * `--resume` goes on in the same checkout). Returns its path.
 */
export async function ensureWorktree(
  root: string,
  name: string,
): Promise<{ path: string; created: boolean }> {
  const path = worktreePath(root, checkWorktreeName(name));
  // The checkouts live under .ralph/worktrees/: the main tree must not see them as untracked work.
  ensureRuntimeIgnored(ralphPaths(root));
  if (existsSync(join(path, '.git'))) return { path, created: false };
  const branch = worktreeBranch(name);
  const exists =
    (await runGitRaw(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).exitCode === 0;
  // An existing branch (its worktree was removed) is checked out again, never reset.
  await runGit(
    root,
    exists ? ['worktree', 'add', path, branch] : ['worktree', 'add', '-b', branch, path, 'HEAD'],
  );
  return { path, created: true };
}

/** The worktree name of `ralph run --worktree` without one. */
export const DEFAULT_WORKTREE = 'loop';

/** Where a loop runs in its own checkout: {@link prepareWorktree}'s answer. */
export interface PreparedWorktree {
  /** The workspace to run the loop in: the caller's directory, at the same place in the worktree. */
  workspace: string;
  /** The worktree: `.ralph/worktrees/NAME` of the repository. */
  path: string;
  /** Its branch, `ralph/NAME`. */
  branch: string;
  /** Made now (false: an earlier one reused, where `mode: 'resume'` goes on). */
  created: boolean;
}

/**
 * `ralph run --worktree NAME`: the git worktree `.ralph/worktrees/NAME` on branch `ralph/NAME` of
 * the repository holding `cwd`, made from HEAD the first time and reused after. Its workspace has
 * its own `.ralph/`; pass it to `runLoop`. Throws `not_a_git_repo`, `usage` (a bad name), and
 * `worktree_missing_file` when ralph.yml, ralph.yaml or PROMPT.md of `cwd` is not committed (a
 * worktree holds only committed files).
 */
export async function prepareWorktree(cwd: string, name = DEFAULT_WORKTREE): Promise<PreparedWorktree> {
  const root = await repoRoot(cwd, { needs: '--worktree' });
  const wt = await ensureWorktree(root, name);
  const workspace = join(wt.path, relative(root, cwd));
  for (const file of ['ralph.yml', 'ralph.yaml', 'PROMPT.md'])
    if (existsSync(join(cwd, file)) && !existsSync(join(workspace, file)))
      throw new RalphError(
        'worktree_missing_file',
        `${file} is not in the worktree ${wt.path}: it is a checkout of your committed files — commit ${file} first, then run again`,
      );
  return { workspace, path: wt.path, branch: worktreeBranch(name), created: wt.created };
}

export interface WorktreeInfo {
  name: string;
  path: string;
  branch: string;
  /** Commits on the worktree's branch that the target does not have, and the other way round. */
  ahead: number;
  behind: number;
  /** The loop in it: running (pid), or its last status and stop reason. */
  loop: string;
  running: boolean;
  dirty: boolean;
  /** The `--parallel` task worked in it: its state, and the last merge gate result. */
  task?: { id: string; title: string; state: string; last_gate: string | null; reason: string | null };
}

/** The `--worktree` checkouts of this repository, against `target` (default: the current branch). */
export async function listWorktrees(root: string, target = 'HEAD'): Promise<WorktreeInfo[]> {
  const porcelain = await runGit(root, ['worktree', 'list', '--porcelain']);
  const prefix = join(ralphPaths(root).dir, 'worktrees');
  const out: WorktreeInfo[] = [];
  const tasks = Object.values(readParallelStateQuietly(root)?.tasks ?? {});
  for (const block of porcelain.split('\n\n')) {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    const branchRef = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1];
    if (!path?.startsWith(`${prefix}/`) || !branchRef) continue;
    const name = path.slice(prefix.length + 1);
    const counts = await runGit(root, ['rev-list', '--left-right', '--count', `${target}...${branchRef}`]);
    const [behind, ahead] = counts.trim().split(/\s+/).map(Number) as [number, number];
    const { state, stateError, running, holder } = readStatus(path);
    let loop = 'no run yet';
    if (stateError) loop = 'state.json damaged';
    else if (state)
      loop = running
        ? `running (pid ${holder?.pid})`
        : `${state.status}${state.stop_reason ? `: ${state.stop_reason}` : ''}`;
    // Ralph's own runtime files in the checkout are not work; anything else uncommitted is.
    const status = await runGitRaw(path, ['status', '--porcelain']);
    const dirty = status.stdout.split('\n').some((l) => l.trim() !== '' && !l.slice(3).startsWith('.ralph/'));
    const t = tasks.find((x) => x.worktree === name);
    const task = t && {
      id: t.id,
      title: t.title,
      state: t.state,
      last_gate: t.last_gate?.summary ?? null,
      reason: t.reason ?? null,
    };
    out.push({
      name,
      path,
      branch: branchRef,
      ahead,
      behind,
      loop,
      running,
      dirty,
      ...(task ? { task } : {}),
    });
  }
  return out;
}

/**
 * Removes the worktrees whose branch holds nothing the target lacks (and whose loop is not
 * running, and whose tree is clean). Never deletes a branch or checkout with work not on the target.
 */
export async function cleanWorktrees(
  root: string,
  target = 'HEAD',
): Promise<{ removed: string[]; kept: { name: string; why: string }[] }> {
  const removed: string[] = [];
  const kept: { name: string; why: string }[] = [];
  for (const w of await listWorktrees(root, target)) {
    if (w.running) kept.push({ name: w.name, why: 'its loop is running' });
    else if (w.ahead > 0)
      kept.push({
        name: w.name,
        why: `${w.ahead} commit(s) on ${w.branch} are not on the target; merge them first`,
      });
    else if (w.dirty) kept.push({ name: w.name, why: 'it has uncommitted changes' });
    else {
      // --force only for Ralph's runtime files left in it (checked above: nothing else is uncommitted).
      await runGit(root, ['worktree', 'remove', '--force', w.path]);
      await runGit(root, ['branch', '-d', w.branch]);
      removed.push(w.name);
    }
  }
  return { removed, kept };
}

/**
 * Removes one worktree and its branch once everything on the branch is on the target and nothing
 * in the checkout is uncommitted; false (and nothing touched) otherwise.
 */
export async function removeIfMerged(root: string, name: string, target: string): Promise<boolean> {
  const path = worktreePath(root, name);
  const branch = worktreeBranch(name);
  const merged = await isAncestor(root, branch, target);
  if (!merged) return false;
  const status = await runGitRaw(path, ['status', '--porcelain']);
  if (
    status.exitCode !== 0 ||
    status.stdout.split('\n').some((l) => l.trim() !== '' && !l.slice(3).startsWith('.ralph/'))
  )
    return false;
  await runGit(root, ['worktree', 'remove', '--force', path]);
  await runGit(root, ['branch', '-d', branch]);
  return true;
}

function readParallelStateQuietly(root: string): ParallelState | undefined {
  try {
    return readParallelState(parallelPaths(root).state);
  } catch {
    return undefined; // a damaged file is reported by the parallel run itself
  }
}
