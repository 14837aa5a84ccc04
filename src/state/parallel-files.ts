import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { RalphError } from '../errors.ts';
import { writeJsonAtomicSync } from './io/atomic-write.ts';
import { liveHolder } from './io/lock.ts';
import { RALPH_DIR, ralphPaths } from './paths.ts';

/** `.ralph/parallel/` of the coordinating workspace (DESIGN.md §5 "Parallel loops"). */
export interface ParallelPaths {
  dir: string;
  /** The coordinator's durable state: tasks, the merge queue, what the workers spent. */
  state: string;
  /** One coordinator per workspace. */
  lock: string;
  /** `<task id>.json` per claimed task: `{task, worker, pid, host, start_time}`. */
  claims: string;
  /** What each worker process was told to do (its config, prompt and assignment). */
  specs: string;
  /** Each worker process's console output. */
  logs: string;
}

/** Where a parallel run's files are under `root`'s `.ralph/parallel/`. */
export function parallelPaths(root: string): ParallelPaths {
  const dir = join(root, RALPH_DIR, 'parallel');
  return {
    dir,
    state: join(dir, 'state.json'),
    lock: join(dir, 'coordinator.lock'),
    claims: join(dir, 'claims'),
    specs: join(dir, 'workers'),
    logs: join(dir, 'logs'),
  };
}

/** Where `ralph run --worktree NAME` and a parallel task keep their checkout: `.ralph/worktrees/NAME`. */
export function worktreePath(repo: string, name: string): string {
  return join(repo, RALPH_DIR, 'worktrees', name);
}

/** Where a task's worker runs: the coordinator's place in the repository, inside the task's worktree. */
export function workerWorkspace(repo: string, coordinator: string, worktree: string): string {
  return join(worktreePath(repo, worktree), relative(repo, coordinator));
}

/** The repository top of a workspace: the nearest folder up holding `.git` (a directory or a file). */
export function repoTopOf(workspace: string): string {
  for (let dir = workspace; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return workspace;
  }
}

/** The pid of the coordinator running `state` in `workspace` (it holds the workspace's lock), or null. */
export function coordinatorPid(workspace: string, state: Pick<ParallelState, 'id'>): number | null {
  const lock = liveHolder(ralphPaths(workspace).lock);
  return lock && lock.run_id === state.id ? lock.pid : null;
}

/** Where a task is in a parallel run. A task is `merged` only once its commit is on the target. */
export type ParallelTaskState =
  | 'ready'
  | 'working'
  | 'queued'
  | 'merging'
  | 'merged'
  | 'needs_review'
  | 'failed';

/** One task of a parallel run (`.ralph/parallel/state.json`): its worktree, worker, attempts and spend. */
export interface ParallelTask {
  id: string;
  title: string;
  /** More about it, from the source (a task's description, the checklist's milestone). */
  body?: string;
  state: ParallelTaskState;
  /** The worktree (and branch `ralph/<worktree>`) the task is worked in; kept for its whole life. */
  worktree: string;
  /** The worker slot that last worked on it (w1 …). */
  worker: string | null;
  /** Worker runs that ended without the task done (crash, limit, failure); one retry is allowed. */
  attempts: number;
  /** Merge attempts that failed (conflict unresolved, gates failed after the rebase). */
  merge_attempts: number;
  /** A merge conflict was resolved by a merge commit: later catch-ups merge instead of rebasing. */
  resolved_by_merge?: boolean;
  /** What the next worker run on this task must fix (a gate's output after the rebase …). */
  feedback?: string | null;
  last_gate?: { passed: boolean; summary: string } | null;
  /** The worker runs (run ids in the worktree) and what each spent, counted once per run id. */
  runs: Record<string, { cost_usd: number; tokens: number }>;
  merged_commit?: string;
  /** `merge.via: pull_request`: the pull request the task lands through, and where it stands. */
  pr?: TaskPullRequest;
  /** Why it is failed or needs review. */
  reason?: string;
}

/** A task's pull request (`merge.via: pull_request`). */
export interface TaskPullRequest {
  number: number;
  url: string;
  /** The branch it merges (`ralph/<task-id>`) and the target it merges into. */
  head: string;
  base: string;
  status: 'open' | 'merged' | 'closed';
}

/**
 * A parallel run as `.ralph/parallel/state.json` holds it (and `runParallel` resolves with): its
 * target branch, worker count, tasks, merge queue, status and stop reason.
 */
export interface ParallelState {
  version: 1;
  id: string;
  target: string;
  workers: number;
  source: 'tasks' | 'checklist' | 'plan';
  started_at: string;
  updated_at: string;
  /** Runtime of the sessions before this one (a resumed run goes on from here). */
  runtime_ms: number;
  tasks: Record<string, ParallelTask>;
  /** Task ids waiting for the merge queue, oldest first (a task being merged stays first). */
  queue: string[];
  status: 'running' | 'completed' | 'stopped' | 'interrupted';
  stop_reason?: string;
  /** `ralph stop` in this workspace: bytes of the inbox read and the command ids taken. */
  control?: { offset: number; consumed: string[] };
}

/** A parallel run's state file, or undefined when there is none (a damaged one throws `state_corrupt`). */
export function readParallelState(path: string): ParallelState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as ParallelState;
    if (value.version !== 1 || typeof value.tasks !== 'object' || !Array.isArray(value.queue))
      throw new Error('not a parallel state');
    return value;
  } catch (error) {
    throw new RalphError(
      'state_corrupt',
      `${path} is damaged (${(error as Error).message}); move it away to start the parallel run over — the worktrees and their branches are kept`,
    );
  }
}

export function writeParallelState(path: string, state: ParallelState, now = new Date()): void {
  state.updated_at = now.toISOString();
  writeJsonAtomicSync(path, state);
}
