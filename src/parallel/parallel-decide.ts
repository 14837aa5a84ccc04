import type { RalphConfig } from '../config/schema.ts';
import { stopText } from '../observe/format.ts';
import type { LoopState } from '../state/loop-state.ts';
import type { ParallelState, ParallelTask } from '../state/parallel-files.ts';
import type { SourceTask } from './task-source.ts';
import type { Assignment } from './worker-spec.ts';

/** Why a parallel run stops before its tasks are done. */
export interface ParallelStop {
  reason: string;
  message: string;
  exitCode: number;
  /** Interrupt the workers now instead of letting them finish their iteration. */
  now?: boolean;
}

/** Worker runs that may end without the task done before it is failed: the first and one retry. */
export const MAX_WORKER_ATTEMPTS = 2;

export function newTask(source: SourceTask): ParallelTask {
  return {
    id: source.id,
    title: source.title,
    body: source.body,
    state: 'ready',
    worktree: source.id,
    worker: null,
    attempts: 0,
    merge_attempts: 0,
    feedback: null,
    last_gate: null,
    runs: {},
  };
}

/**
 * Which tasks the free worker slots take now: tasks sent back (a retry, gates that failed after
 * the rebase) before new ones, each in the source's order; never a task that is working, queued,
 * merged, failed or waiting for review. Pure: the caller records the assignments.
 */
export function nextWork(
  state: Pick<ParallelState, 'tasks'>,
  ready: readonly SourceTask[],
  busy: { has(worker: string): boolean },
  slots: number,
): { worker: string; task: ParallelTask; assignment: Assignment }[] {
  const free: string[] = [];
  for (let i = 1; i <= slots; i++) if (!busy.has(`w${i}`)) free.push(`w${i}`);
  // A task sent back is no longer "ready" in its source (a tools task is in progress): the state says it is.
  const back = Object.values(state.tasks).filter((t) => t.state === 'ready');
  const fresh = ready.filter((s) => state.tasks[s.id] === undefined);
  const bodies = new Map(ready.map((s) => [s.id, s.body]));
  const out: { worker: string; task: ParallelTask; assignment: Assignment }[] = [];
  for (const task of [...back, ...fresh.map(newTask)]) {
    const worker = free.shift();
    if (worker === undefined) break;
    out.push({
      worker,
      task,
      assignment: {
        kind: 'task',
        title: task.title,
        body: bodies.get(task.id) ?? task.body ?? '',
        feedback: task.feedback ?? null,
      },
    });
  }
  return out;
}

/**
 * What a worker's end means for its task, from the state its run left: completed → the merge
 * queue (the merge decides whether it is done); stopped by the coordinator → ready again, no
 * attempt used; anything else (a crash, a limit, failures) → one retry, then failed.
 */
export function settleWorker(
  task: ParallelTask,
  after: LoopState | undefined,
  priorRun: string | undefined,
  stopping: boolean,
): { queue: boolean; label: string } {
  const ran = after !== undefined && after.run_id !== priorRun;
  if (ran && after.status === 'completed') {
    task.state = 'queued';
    task.feedback = null;
    return { queue: true, label: 'completed' };
  }
  const label = !ran
    ? 'exited before its loop started'
    : after.status === 'running'
      ? 'killed (its loop was still running)'
      : after.status === 'interrupted' || !after.stop_reason
        ? after.status
        : `${after.status}: ${stopText(after.stop_reason, after.stop_message)}`;
  if (stopping) {
    task.state = 'ready';
    return { queue: false, label };
  }
  task.attempts++;
  if (task.attempts >= MAX_WORKER_ATTEMPTS) {
    task.state = 'failed';
    task.reason = `${label}, after ${task.attempts} worker run(s)`;
  } else task.state = 'ready';
  return { queue: false, label };
}

/** A shared limit used up (cost and tokens summed over every worker; runtime since the start). */
export function stopOf(
  left: { costUsd: number | undefined; tokens: number | undefined; runtimeSeconds: number },
  config: RalphConfig,
): ParallelStop | null {
  const l = config.event_loop;
  if (left.costUsd !== undefined && left.costUsd <= 0)
    return {
      reason: 'max_cost',
      exitCode: 2,
      message: `the workers together spent $${l.max_cost_usd} (max_cost_usd)`,
    };
  if (left.tokens !== undefined && left.tokens <= 0)
    return {
      reason: 'max_tokens',
      exitCode: 2,
      message: `the workers together used ${l.max_tokens} tokens (max_tokens)`,
    };
  if (left.runtimeSeconds <= 0)
    return {
      reason: 'max_runtime',
      exitCode: 2,
      message: `${l.max_runtime_seconds}s of runtime used (max_runtime_seconds)`,
    };
  return null;
}
