import type { ParallelTaskState } from '../state/parallel-files.ts';
import type { Reporter } from './reporter.ts';

/** One worker slot as the TUI and the console show it. */
export interface WorkerView {
  worker: string;
  task: string | null;
  title: string | null;
  kind: 'task' | 'resolve' | null;
  pid: number | null;
  iteration: number;
  costUsd: number;
  status: string;
}

/** The coordinator started (or resumed) a parallel run over `tasks` tasks with `workers` workers. */
export interface ParallelStartedEvent {
  type: 'parallel.started';
  id: string;
  target: string;
  workers: number;
  source: string;
  tasks: number;
  resumed: boolean;
}

/** A worker process started on a task (or a merge conflict to resolve), or was adopted on --resume. */
export interface WorkerStartedEvent {
  type: 'worker.started';
  worker: string;
  task: string;
  title: string;
  kind: 'task' | 'resolve';
  pid: number;
  worktree: string;
  adopted: boolean;
}

/** A worker's loop ended: how, after how many iterations, at what cost. */
export interface WorkerFinishedEvent {
  type: 'worker.finished';
  worker: string;
  task: string;
  outcome: string;
  iterations: number;
  costUsd: number;
}

/** Every worker slot as it stands, and the run's spend so far (each pass of the coordinator). */
export interface WorkersProgressEvent {
  type: 'workers.progress';
  workers: WorkerView[];
  costUsd: number;
  tokens: number;
}

/** A task moved to another state of the parallel run (claimed, queued, merged, failed …). */
export interface TaskStateEvent {
  type: 'task.state';
  task: string;
  title: string;
  state: ParallelTaskState;
  reason?: string | undefined;
}

/** The merge queue took a task: rebase onto the target begins. */
export interface MergeStartedEvent {
  type: 'merge.started';
  task: string;
  title: string;
}

/** The rebase of a task conflicted on `files` (attempt `attempt` of merge.max_attempts). */
export interface MergeConflictEvent {
  type: 'merge.conflict';
  task: string;
  files: string[];
  attempt: number;
}

/** The gates on a task's rebased tree started, passed or failed. */
export interface MergeGatesEvent {
  type: 'merge.gates';
  task: string;
  phase: 'started' | 'passed' | 'failed';
  summary?: string;
}

/** A task's commit is on the target branch. */
export interface MergeMergedEvent {
  type: 'merge.merged';
  task: string;
  title: string;
  commit: string;
  doneCommit: string | null;
}

/** `merge.via: pull_request`: the task's pull request opened, adopted, waited for, merged or closed. */
export interface MergePullRequestEvent {
  type: 'merge.pull_request';
  task: string;
  title: string;
  action: 'opened' | 'adopted' | 'waiting' | 'merged' | 'closed' | 'unreachable';
  number: number;
  url: string;
  /** Why the forge could not be asked (`unreachable`); the next poll asks again. */
  message?: string | undefined;
}

/** A shared limit (cost, tokens, runtime) stops the run: the workers finish their iteration. */
export interface ParallelLimitEvent {
  type: 'parallel.limit';
  reason: string;
  message: string;
}

/** The parallel run ended: why, its exit code, and how many tasks were merged of how many. */
export interface ParallelFinishedEvent {
  type: 'parallel.finished';
  reason: string;
  exitCode: number;
  merged: number;
  total: number;
  message: string;
}

/**
 * What a parallel run reports (DESIGN.md §5): the coordinator's one typed stream, a named type per
 * event, delivered to `runParallel({ reporters })` (`Reporter<ParallelEvent>`), next to each
 * worker's own loop events (in the worker's run files).
 */
export type ParallelEvent =
  | ParallelStartedEvent
  | WorkerStartedEvent
  | WorkerFinishedEvent
  | WorkersProgressEvent
  | TaskStateEvent
  | MergeStartedEvent
  | MergeConflictEvent
  | MergeGatesEvent
  | MergeMergedEvent
  | MergePullRequestEvent
  | ParallelLimitEvent
  | ParallelFinishedEvent;

/** The `type` of every {@link ParallelEvent}. */
export type ParallelEventType = ParallelEvent['type'];

/** A sink of a parallel run's events: the console lines, the parallel TUI, an embedder's own. */
export type ParallelReporter = Reporter<ParallelEvent>;
