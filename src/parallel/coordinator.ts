import type { BackendName, RalphConfig } from '../config/schema.ts';
import type { StartMode } from '../engine/context/run-context.ts';
import { sendCommand } from '../human/human-actions.ts';
import { acquireLock } from '../state/lock.ts';
import { type ParallelState, parallelPaths, writeParallelState } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import { ensureRuntimeIgnored } from '../state/runtime-ignore.ts';
import { mergeTask } from './merge-queue.ts';
import { nextWork, type ParallelStop, settleWorker, stopOf } from './parallel-decide.ts';
import type { ParallelEventListener } from './parallel-events.ts';
import { openParallelRun, readStopCommands } from './parallel-start.ts';
import { markDone, markFailed, markStarted, readyFromSource } from './task-source.ts';
import { type SpawnWorker, spawnWorkerProcess } from './worker-process.ts';
import {
  type ActiveWorker,
  account,
  adopt,
  liveWorkerOf,
  release,
  spent,
  startWorker,
  taskWorkspace,
  type WorkerSetup,
  workerViews,
} from './worker-runs.ts';
import { removeIfMerged } from './worktrees.ts';

export interface ParallelOptions {
  /** The coordinating workspace: a git checkout on the target branch. */
  workspace: string;
  config: RalphConfig;
  prompt: string;
  backend: BackendName;
  extraArgs?: readonly string[] | undefined;
  workers: number;
  mode?: StartMode | undefined;
  /** Abort (Ctrl-C): every worker is interrupted, records its iteration and saves its state. */
  signal?: AbortSignal | undefined;
  onEvent?: ParallelEventListener | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  spawnWorker?: SpawnWorker | undefined;
  now?: (() => number) | undefined;
  /** How often worker progress and the stop inbox are looked at (ms). */
  pollMs?: number | undefined;
}

export interface ParallelResult {
  exitCode: number;
  reason: string;
  message: string;
  state: ParallelState;
}

/**
 * `ralph run --parallel N` (DESIGN.md §5): N workers, each in its own worktree on one claimed task,
 * and one merge queue here. A task is done only when its commit is on the target branch.
 */
export async function runParallel(o: ParallelOptions): Promise<ParallelResult> {
  const now = o.now ?? Date.now;
  const emit: ParallelEventListener = (e) => o.onEvent?.(e);
  const paths = parallelPaths(o.workspace);
  ensureRuntimeIgnored(ralphPaths(o.workspace));
  const opened = await openParallelRun(o, paths, now);
  const { state, repo, kind } = opened;
  const lock = acquireLock(ralphPaths(o.workspace).lock, state.id);
  const setup: WorkerSetup = {
    repo,
    workspace: o.workspace,
    paths,
    config: o.config,
    prompt: o.prompt,
    backend: o.backend,
    extraArgs: [...(o.extraArgs ?? [])],
    env: o.env ?? process.env,
    spawn: o.spawnWorker ?? spawnWorkerProcess,
    sourceFile: opened.sourceFile,
  };
  const sessionStart = now();
  const persist = () => writeParallelState(paths.state, state, new Date(now()));
  const active = new Map<string, ActiveWorker>();
  let merging: Promise<void> | null = null;
  let stopping: ParallelStop | null = null;
  let wake: () => void = () => {};
  const woken = () => new Promise<void>((done) => (wake = done));
  const onAbort = () => wake();
  o.signal?.addEventListener('abort', onAbort);

  const runtimeLeftMs = () =>
    o.config.event_loop.max_runtime_seconds * 1000 - (state.runtime_ms + (now() - sessionStart));
  const left = () => {
    const s = spent(state);
    const l = o.config.event_loop;
    return {
      costUsd: l.max_cost_usd === undefined ? undefined : l.max_cost_usd - s.costUsd,
      tokens: l.max_tokens === undefined ? undefined : l.max_tokens - s.tokens,
      runtimeSeconds: runtimeLeftMs() / 1000,
    };
  };

  const ended = new Set<ActiveWorker>();
  const stopSent = new Set<string>();
  const watch = (a: ActiveWorker) => {
    active.set(a.worker, a);
    a.handle.exited.then(() => {
      ended.add(a);
      wake();
    });
  };

  // A crash of the last coordinator: its workers may still run (adopted) or have ended meanwhile.
  for (const task of Object.values(state.tasks)) {
    if (task.state !== 'working') continue;
    const live = liveWorkerOf(setup, task);
    if (live) {
      const a = adopt(setup, task, live);
      watch(a);
      emit({
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
  persist();
  emit({
    type: 'parallel.started',
    id: state.id,
    target: state.target,
    workers: state.workers,
    source: kind,
    tasks: Object.keys(state.tasks).length,
    resumed: opened.resumed,
  });

  const finishWorker = (a: ActiveWorker) => {
    active.delete(a.worker);
    release(setup, a.task);
    const after = account(a.task, a.dir);
    const outcome = settleWorker(a.task, after, a.priorRun, stopping !== null || o.signal?.aborted === true);
    if (outcome.queue) state.queue.push(a.task.id);
    if (a.task.state === 'failed') markFailed(o.workspace, kind, a.task.id, a.task.reason ?? 'failed');
    persist();
    emit({
      type: 'worker.finished',
      worker: a.worker,
      task: a.task.id,
      outcome: outcome.label,
      iterations: after?.iterations ?? 0,
      costUsd: after?.cost_usd ?? 0,
    });
    emit({
      type: 'task.state',
      task: a.task.id,
      title: a.task.title,
      state: a.task.state,
      reason: a.task.reason,
    });
  };

  const mergeNext = async (id: string) => {
    const task = state.tasks[id];
    if (!task) {
      state.queue = state.queue.filter((q) => q !== id);
      return;
    }
    task.state = 'merging';
    persist();
    emit({ type: 'merge.started', task: id, title: task.title });
    const dir = taskWorkspace(setup, task);
    const outcome = await mergeTask(task, dir, {
      root: o.workspace,
      target: state.target,
      config: o.config,
      env: setup.env,
      maxAttempts: o.config.merge.max_attempts,
      persist,
      emit,
      signal: o.signal,
      resolve: async (t, conflict) => {
        const a = await startWorker(setup, {
          worker: 'merge',
          task: t,
          assignment: { kind: 'resolve', title: t.title, conflict },
          workers: state.workers,
          target: state.target,
          left: left(),
        });
        if (!a) return;
        watch(a);
        emit({
          type: 'worker.started',
          worker: 'merge',
          task: t.id,
          title: t.title,
          kind: 'resolve',
          pid: a.handle.pid,
          worktree: t.worktree,
          adopted: false,
        });
        await a.handle.exited;
        active.delete('merge');
        release(setup, t);
        account(t, a.dir);
        persist();
      },
    });
    state.queue = state.queue.filter((q) => q !== id);
    if (outcome.kind === 'merged') {
      task.merged_commit = outcome.commit;
      const doneCommit = await markDone(o.workspace, o.config, kind, task, outcome.commit);
      task.state = 'merged';
      persist();
      emit({ type: 'merge.merged', task: id, title: task.title, commit: outcome.commit, doneCommit });
      // Its commits are on the target now: the checkout and branch go (never before, never otherwise).
      await removeIfMerged(repo, task.worktree, state.target).catch(() => false);
    } else if (outcome.kind === 'rework') {
      task.state = 'ready';
      task.feedback = outcome.feedback;
    } else {
      task.state = 'needs_review';
      task.reason = outcome.reason;
    }
    persist();
    emit({ type: 'task.state', task: id, title: task.title, state: task.state, reason: task.reason });
  };

  try {
    for (;;) {
      for (const cmd of readStopCommands(o.workspace, state)) {
        stopping ??= cmd;
        persist();
      }
      stopping ??= stopOf(left(), o.config);
      if (o.signal?.aborted) stopping = { reason: 'interrupted', message: 'interrupted', exitCode: 130 };
      if (stopping) {
        for (const a of active.values())
          if (stopping.reason === 'interrupted' || stopping.now) a.handle.interrupt();
          else if (!stopSent.has(a.task.id)) {
            sendCommand(a.dir, 'stop', 'cli', { text: `parallel run: ${stopping.message}` });
            stopSent.add(a.task.id);
          }
      }
      for (const a of [...active.values()]) if (a.kind === 'task' && ended.has(a)) finishWorker(a);

      if (!stopping) {
        const ready = readyFromSource(o.workspace, o.config, kind);
        for (const work of nextWork(state, ready, active, state.workers)) {
          const a = await startWorker(setup, {
            ...work,
            workers: state.workers,
            target: state.target,
            left: left(),
          });
          if (!a) continue;
          state.tasks[work.task.id] = work.task;
          work.task.state = 'working';
          work.task.worker = work.worker;
          markStarted(o.workspace, kind, work.task.id);
          persist();
          watch(a);
          emit({
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
      if (!merging && state.queue.length > 0 && stopping?.reason !== 'interrupted') {
        const id = state.queue[0] as string;
        merging = mergeNext(id).finally(() => {
          merging = null;
          wake();
        });
      }
      emit({
        type: 'workers.progress',
        workers: workerViews(active.values(), state.workers),
        ...spent(state),
      });
      if (active.size === 0 && !merging) {
        const idle =
          stopping !== null ||
          nextWork(state, readyFromSource(o.workspace, o.config, kind), active, state.workers).length === 0;
        if (idle && state.queue.length === 0) break;
        if (idle && stopping?.reason === 'interrupted') break;
      }
      await Promise.race([woken(), sleep(o.pollMs ?? 500)]);
    }
    return finish(state, stopping, persist, emit, now() - sessionStart);
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    lock.release();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref?.());
}

function finish(
  state: ParallelState,
  stopping: ParallelStop | null,
  persist: () => void,
  emit: ParallelEventListener,
  sessionMs: number,
): ParallelResult {
  const tasks = Object.values(state.tasks);
  const merged = tasks.filter((t) => t.state === 'merged').length;
  const open = tasks.filter((t) => t.state !== 'merged');
  let result: { reason: string; exitCode: number; message: string };
  if (stopping) result = { reason: stopping.reason, exitCode: stopping.exitCode, message: stopping.message };
  else if (open.length === 0)
    result = {
      reason: 'completed',
      exitCode: 0,
      message: `all ${merged} task(s) merged into ${state.target}`,
    };
  else
    result = {
      reason: 'tasks_unfinished',
      exitCode: 1,
      message: `${open.length} task(s) not merged: ${open.map((t) => `${t.title} (${t.state}${t.reason ? `: ${t.reason}` : ''})`).join('; ')}`,
    };
  state.runtime_ms += sessionMs;
  state.status =
    result.reason === 'completed' ? 'completed' : result.reason === 'interrupted' ? 'interrupted' : 'stopped';
  state.stop_reason = result.reason;
  persist();
  emit({ type: 'parallel.finished', ...result, merged, total: tasks.length });
  return { ...result, state };
}
