import { basename } from 'node:path';
import { pruneLogFiles } from '../state/run-dirs.ts';
import type { Coordination } from './coordination.ts';
import { nextWork, settleWorker } from './parallel-decide.ts';
import { markFailed, markStarted, readyFromSource } from './task-source.ts';
import {
  type ActiveWorker,
  account,
  adopt,
  liveWorkerOf,
  logFileOf,
  release,
  startWorker,
  taskWorkspace,
} from './worker-runs.ts';

/**
 * A crash of the last coordinator: its workers may still run (adopted) or have ended meanwhile.
 * Tasks a person was asked to review get another merge attempt: they may have fixed the worktree.
 */
export function adoptLiving(c: Coordination): void {
  for (const task of Object.values(c.state.tasks)) {
    if (task.state === 'needs_review') {
      task.state = 'queued';
      task.merge_attempts = 0;
      delete task.reason;
      if (!c.state.queue.includes(task.id)) c.state.queue.push(task.id);
      continue;
    }
    if (task.state !== 'working') continue;
    const live = liveWorkerOf(c.setup, task);
    if (!live) {
      // Its worker ended while no coordinator watched: settled now, from the state its run left.
      finishWorker(c, {
        worker: task.worker ?? 'w?',
        task,
        kind: 'task',
        handle: { pid: 0, exited: Promise.resolve(), interrupt: () => {} },
        dir: taskWorkspace(c.setup, task),
      });
      continue;
    }
    const a = adopt(c.setup, task, live);
    c.watch(a);
    c.emit({
      type: 'worker.started',
      worker: a.worker,
      task: task.id,
      title: task.title,
      kind: 'task',
      pid: live.pid,
      worktree: task.worktree,
      adopted: true,
    });
  }
}

/** A worker's process ended: its claim goes, what it spent is counted, its task moves on. */
export function finishWorker(c: Coordination, a: ActiveWorker): void {
  const { state } = c;
  c.active.delete(a.worker);
  c.ended.delete(a);
  release(c.setup, a.task);
  const after = account(a.task, a.dir);
  const outcome = settleWorker(
    a.task,
    after,
    a.priorRun,
    c.stopping !== null || c.o.signal?.aborted === true,
  );
  if (outcome.queue) state.queue.push(a.task.id);
  if (a.task.state === 'failed') markFailed(c.o.workspace, c.kind, a.task.id, a.task.reason ?? 'failed');
  c.persist();
  c.emit({
    type: 'worker.finished',
    worker: a.worker,
    task: a.task.id,
    outcome: outcome.label,
    iterations: after?.iterations ?? 0,
    costUsd: after?.cost_usd ?? 0,
  });
  c.emit({
    type: 'task.state',
    task: a.task.id,
    title: a.task.title,
    state: a.task.state,
    reason: a.task.reason,
  });
}

/** Worker logs beyond `logs.keep_logs`, least recently written first; a live worker's log stays. */
function pruneWorkerLogs(c: Coordination): void {
  const live = [...c.active.values()].map((a) => basename(logFileOf(c.setup, a.task)));
  pruneLogFiles(c.setup.paths.logs, c.o.config.logs.keep_logs, live, (name) => name.endsWith('.log'));
}

/** The free worker slots take the next ready tasks. */
export async function startNext(c: Coordination): Promise<void> {
  // A merge marking its task done: the source may show it done before it is announced merged.
  if (c.markingDone) return;
  const { state } = c;
  const ready = readyFromSource(c.o.workspace, c.o.config, c.kind);
  for (const work of nextWork(state, ready, c.active, state.workers)) {
    let a: ActiveWorker | undefined;
    try {
      a = await startWorker(c.setup, {
        ...work,
        workers: state.workers,
        target: state.target,
        left: c.left(),
      });
    } catch (error) {
      // A worktree git refuses to make, a spec that cannot be written: this task cannot run.
      release(c.setup, work.task);
      state.tasks[work.task.id] = work.task;
      work.task.state = 'failed';
      work.task.reason = `its worker could not start: ${(error as Error).message}`;
      markFailed(c.o.workspace, c.kind, work.task.id, work.task.reason);
      c.persist();
      c.emit({
        type: 'task.state',
        task: work.task.id,
        title: work.task.title,
        state: 'failed',
        reason: work.task.reason,
      });
      continue;
    }
    if (!a) continue;
    state.tasks[work.task.id] = work.task;
    work.task.state = 'working';
    work.task.worker = work.worker;
    markStarted(c.o.workspace, c.o.config, c.kind, work.task.id);
    c.persist();
    c.watch(a);
    pruneWorkerLogs(c);
    c.emit({
      type: 'worker.started',
      worker: a.worker,
      task: work.task.id,
      title: work.task.title,
      kind: 'task',
      pid: a.handle.pid,
      worktree: work.task.worktree,
      adopted: false,
    });
  }
}

/** Nothing left to start: no ready task, or none may start. */
export function nothingToStart(c: Coordination): boolean {
  return (
    c.stopping !== null ||
    nextWork(c.state, readyFromSource(c.o.workspace, c.o.config, c.kind), c.active, c.state.workers)
      .length === 0
  );
}
