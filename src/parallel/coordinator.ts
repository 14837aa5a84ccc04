import { setTimeout as wait } from 'node:timers/promises';
import { sendCommand } from '../human/control-files.ts';
import type { ParallelEvent } from '../observe/parallel-events.ts';
import { reportToAll } from '../observe/reporter.ts';
import { type ParallelState, parallelPaths, writeParallelState } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import { ensureRuntimeIgnored } from '../state/runtime-ignore.ts';
import { acquireWorkspaceLock } from '../state/workspace-lock.ts';
import {
  type Coordination,
  type ParallelOptions,
  type ParallelResult,
  parallelSettings,
} from './coordination.ts';
import { mergeFailed, mergeNext, parallelConfigMark } from './merge-step.ts';
import { type ParallelStop, stopOf } from './parallel-decide.ts';
import { openParallelRun, readStopCommands } from './parallel-start.ts';
import { openMergeForge } from './pull-request-land.ts';
import { forceStopWorkers } from './worker-force-stop.ts';
import { spawnWorkerProcess } from './worker-process.ts';
import { type ActiveWorker, spent, workerViews } from './worker-runs.ts';
import { adoptLiving, finishWorker, nothingToStart, startNext } from './worker-steps.ts';

export type { ParallelOptions, ParallelResult } from './coordination.ts';

/**
 * `ralph run --parallel N` (DESIGN.md §5): N workers, each in its own worktree on one claimed task,
 * and one merge queue here. A task is done only when its commit is on the target branch. Reports
 * to `reporters` (`describeEvent` words each event); resolves to how the run ended once every
 * worker has stopped. Throws a RalphError when the workspace cannot coordinate (`usage`,
 * `not_a_git_repo`, `git_state`, `dirty_tree`, `parallel_no_tasks`, `lock_held` …).
 */
export async function runParallel(options: ParallelOptions): Promise<ParallelResult> {
  const o = parallelSettings(options);
  const reporters = o.reporters ?? [];
  const now = o.now ?? Date.now;
  const paths = parallelPaths(o.workspace);
  ensureRuntimeIgnored(ralphPaths(o.workspace));
  const opened = await openParallelRun(o, paths, now);
  // Before any worker runs: what the merges' git calls may run is taken from the config as it is now.
  const gitConfig = await parallelConfigMark(o.workspace);
  const { state } = opened;
  // merge.via: pull_request: the forge is checked (token, push rights) before any task is claimed.
  const forge = await openMergeForge(o.workspace, o.config, o.env ?? process.env);
  const lock = acquireWorkspaceLock(ralphPaths(o.workspace), state.id, o.env ?? process.env);
  const sessionStart = now();
  const halt = new AbortController();
  let wake: () => void = () => {};
  const woken = () => new Promise<void>((done) => (wake = done));
  const c: Coordination = {
    o,
    state,
    kind: opened.kind,
    setup: {
      repo: opened.repo,
      workspace: o.workspace,
      paths,
      config: o.config,
      prompt: o.prompt,
      backend: o.backend,
      extraArgs: [...(o.extraArgs ?? [])],
      env: o.env ?? process.env,
      spawn: o.spawnWorker ?? spawnWorkerProcess,
      sourceFile: opened.sourceFile,
    },
    active: new Map(),
    ended: new Set(),
    stopping: null,
    markingDone: false,
    halted: halt.signal,
    forge,
    gitConfig,
    persist: () => writeParallelState(paths.state, state, new Date(now())),
    emit: (e) => {
      const failed = reportToAll(reporters, e);
      if (failed) throw failed.error;
    },
    left: () => {
      const s = spent(state);
      const l = o.config.event_loop;
      return {
        costUsd: l.max_cost_usd === undefined ? undefined : l.max_cost_usd - s.costUsd,
        tokens: l.max_tokens === undefined ? undefined : l.max_tokens - s.tokens,
        runtimeSeconds: (l.max_runtime_seconds * 1000 - (state.runtime_ms + (now() - sessionStart))) / 1000,
      };
    },
    watch: (a: ActiveWorker) => {
      c.active.set(a.worker, a);
      a.handle.exited.then(() => {
        c.ended.add(a);
        wake();
      });
    },
  };
  // Every worker at work: a forced stop kills them, their agents and what those left, at once.
  const onForce = () => {
    forceStopWorkers(
      [...c.active.values()].map((a) => ({ pid: a.handle.pid, dir: a.dir })),
      c.setup.env,
    );
    wake();
  };
  const onAbort = () => wake();
  o.signal?.addEventListener('abort', onAbort);
  o.forceSignal?.addEventListener('abort', onForce);
  let merging: Promise<void> | null = null;
  try {
    adoptLiving(c);
    c.persist();
    c.emit({
      type: 'parallel.started',
      id: state.id,
      target: state.target,
      workers: state.workers,
      source: c.kind,
      tasks: Object.keys(state.tasks).length,
      resumed: opened.resumed,
    });
    const stopSent = new Set<string>();
    for (;;) {
      for (const cmd of readStopCommands(o.workspace, state)) {
        c.stopping ??= cmd;
        c.persist();
      }
      c.stopping ??= stopOf(c.left(), o.config);
      if (o.signal?.aborted || o.forceSignal?.aborted)
        c.stopping = { reason: 'interrupted', message: 'interrupted', exitCode: 130 };
      if (c.stopping) {
        stopWorkers(c, c.stopping, stopSent);
        halt.abort();
      }
      // A stopping run does not wait for a pull request's merge: `--resume` waits on.
      const held = c.stopping !== null && state.tasks[state.queue[0] ?? '']?.pr?.status === 'open';
      for (const a of [...c.active.values()]) if (a.kind === 'task' && c.ended.has(a)) finishWorker(c, a);
      if (!c.stopping) await startNext(c);
      if (!merging && state.queue.length > 0 && c.stopping?.reason !== 'interrupted' && !held) {
        const id = state.queue[0] as string;
        merging = mergeNext(c, id)
          .catch((error: unknown) => mergeFailed(c, id, error))
          .finally(() => {
            merging = null;
            wake();
          });
      }
      c.emit({
        type: 'workers.progress',
        workers: workerViews(c.active.values(), state.workers),
        ...spent(state),
      });
      if (c.active.size === 0 && !merging && nothingToStart(c)) {
        if (state.queue.length === 0 || c.stopping?.reason === 'interrupted' || held) break;
      }
      await Promise.race([woken(), sleep(o.pollMs ?? 500)]);
    }
    return finish(state, c.stopping, c.persist, c.emit, now() - sessionStart);
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    o.forceSignal?.removeEventListener('abort', onForce);
    lock.release();
    for (const reporter of reporters) await reporter.close?.();
  }
}

/** Ctrl-C and `stop --now` interrupt the workers; a limit or `ralph stop` lets them finish the iteration. */
function stopWorkers(c: Coordination, stopping: ParallelStop, stopSent: Set<string>): void {
  for (const a of c.active.values())
    if (stopping.reason === 'interrupted' || stopping.now) a.handle.interrupt();
    else if (!stopSent.has(a.task.id)) {
      sendCommand(a.dir, 'stop', 'cli', { text: `parallel run: ${stopping.message}` });
      stopSent.add(a.task.id);
    }
}

// Unreferenced: the wait alone does not keep the process alive.
const sleep = (ms: number) => wait(ms, undefined, { ref: false });

function finish(
  state: ParallelState,
  stopping: ParallelStop | null,
  persist: () => void,
  emit: (event: ParallelEvent) => void,
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
