import type { ParallelTaskState } from '../state/parallel-files.ts';

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

/**
 * What a parallel run reports (DESIGN.md §5): the coordinator's one typed stream, next to each
 * worker's own loop events (in the worker's run files).
 */
export type ParallelEvent =
  | {
      type: 'parallel.started';
      id: string;
      target: string;
      workers: number;
      source: string;
      tasks: number;
      resumed: boolean;
    }
  | {
      type: 'worker.started';
      worker: string;
      task: string;
      title: string;
      kind: 'task' | 'resolve';
      pid: number;
      worktree: string;
      adopted: boolean;
    }
  | {
      type: 'worker.finished';
      worker: string;
      task: string;
      outcome: string;
      iterations: number;
      costUsd: number;
    }
  | { type: 'workers.progress'; workers: WorkerView[]; costUsd: number; tokens: number }
  | { type: 'task.state'; task: string; title: string; state: ParallelTaskState; reason?: string | undefined }
  | { type: 'merge.started'; task: string; title: string }
  | { type: 'merge.conflict'; task: string; files: string[]; attempt: number }
  | { type: 'merge.gates'; task: string; phase: 'started' | 'passed' | 'failed'; summary?: string }
  | { type: 'merge.merged'; task: string; title: string; commit: string; doneCommit: string | null }
  | {
      /** `merge.via: pull_request`: the task's pull request opened, adopted, waited for, merged or closed. */
      type: 'merge.pull_request';
      task: string;
      title: string;
      action: 'opened' | 'adopted' | 'waiting' | 'merged' | 'closed' | 'unreachable';
      number: number;
      url: string;
      /** Why the forge could not be asked (`unreachable`); the next poll asks again. */
      message?: string | undefined;
    }
  | { type: 'parallel.limit'; reason: string; message: string }
  | {
      type: 'parallel.finished';
      reason: string;
      exitCode: number;
      merged: number;
      total: number;
      message: string;
    };

/** `ParallelOptions.onEvent`: called with every event of the coordinator, in order. */
export type ParallelEventListener = (event: ParallelEvent) => void;
