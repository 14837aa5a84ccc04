import { join } from 'node:path';
import type { BackendName, RalphConfig } from '../config/schema.ts';
import type { StartMode } from '../engine/context/run-options.ts';
import type { WorkerView } from '../observe/parallel-events.ts';
import { liveHolder, lockHolderAlive } from '../state/io/lock.ts';
import { type LoopState, loopStateOf } from '../state/loop-state.ts';
import { type Claim, handOverClaim, readClaims, releaseClaim, takeClaim } from '../state/parallel-claims.ts';
import {
  type ParallelPaths,
  type ParallelState,
  type ParallelTask,
  workerWorkspace,
} from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import { adoptWorker, type SpawnWorker, type WorkerHandle } from './worker-process.ts';
import { type Assignment, assignmentPrompt, workerConfig, writeWorkerSpec } from './worker-spec.ts';
import { ensureWorktree } from './worktrees.ts';

/** What a parallel run's worker processes share: where things are and what they run. */
export interface WorkerSetup {
  /** The repository's top (worktrees are made from it) and the coordinator's workspace in it. */
  repo: string;
  workspace: string;
  paths: ParallelPaths;
  config: RalphConfig;
  prompt: string;
  backend: BackendName;
  extraArgs: string[];
  env: NodeJS.ProcessEnv;
  spawn: SpawnWorker;
  sourceFile: string;
}

/** A worker process at work, and what it works on. */
export interface ActiveWorker {
  worker: string;
  task: ParallelTask;
  kind: 'task' | 'resolve';
  handle: WorkerHandle;
  /** The worktree's workspace (the coordinator's workspace, inside the worktree). */
  dir: string;
  /** The run id in the worktree before a fresh start: still there after exit → it never started. */
  priorRun?: string | undefined;
}

/** The workspace of a task's worktree: the same place in it as the coordinator's in the repository. */
export function taskWorkspace(setup: Pick<WorkerSetup, 'repo' | 'workspace'>, task: ParallelTask): string {
  return workerWorkspace(setup.repo, setup.workspace, task.worktree);
}

/** The worker's console output for a task (`.ralph/parallel/logs/<task-id>.log`), appended by each retry. */
export function logFileOf(setup: Pick<WorkerSetup, 'paths'>, task: ParallelTask): string {
  return join(setup.paths.logs, `${task.worktree}.log`);
}

/** Counts what the worktree's current run spent, once per run id (re-reading it overwrites). */
export function account(task: ParallelTask, dir: string): LoopState | undefined {
  const s = loopStateOf(dir);
  if (s) task.runs[s.run_id] = { cost_usd: s.cost_usd, tokens: s.tokens.total };
  return s;
}

export function spent(state: ParallelState): { costUsd: number; tokens: number } {
  let costUsd = 0;
  let tokens = 0;
  for (const t of Object.values(state.tasks))
    for (const r of Object.values(t.runs)) {
      costUsd += r.cost_usd;
      tokens += r.tokens;
    }
  return { costUsd, tokens };
}

/** How a retry starts: an interrupted run goes on (its iteration re-runs), a finished one starts over. */
function retryMode(dir: string): StartMode {
  const s = loopStateOf(dir);
  return s && (s.status === 'running' || s.status === 'interrupted') ? 'resume' : 'fresh';
}

export interface StartOptions {
  worker: string;
  task: ParallelTask;
  assignment: Assignment;
  workers: number;
  target: string;
  left: { costUsd: number | undefined; tokens: number | undefined; runtimeSeconds: number };
}

/**
 * Claims the task for the worker and starts its process in the task's worktree (made on first
 * use). Returns undefined when a live process already holds the claim.
 */
export async function startWorker(setup: WorkerSetup, o: StartOptions): Promise<ActiveWorker | undefined> {
  await ensureWorktree(setup.repo, o.task.worktree);
  const dir = taskWorkspace(setup, o.task);
  if (!takeClaim(setup.paths.claims, o.task.id, o.worker, process.pid)) return undefined;
  const resolve = o.assignment.kind === 'resolve';
  const config = workerConfig(setup.config, setup.workspace, o.left, resolve ? 1 : undefined);
  const promise = config.completion.promise ?? config.event_loop.completion_promise;
  const section = assignmentPrompt(o.assignment, {
    worker: o.worker,
    workers: o.workers,
    target: o.target,
    sourceFile: setup.sourceFile,
    promise,
  });
  const mode = resolve ? 'fresh' : retryMode(dir);
  const priorRun = mode === 'fresh' ? loopStateOf(dir)?.run_id : undefined;
  const spec = writeWorkerSpec(
    setup.paths.specs,
    {
      workspace: dir,
      config,
      prompt: resolve ? section : `${section}\n${setup.prompt}`,
      backend: setup.backend,
      extraArgs: setup.extraArgs,
      mode,
      worker: o.worker,
      task: o.task.id,
    },
    setup.env,
  );
  const handle = setup.spawn({ specFile: spec.file, logFile: logFileOf(setup, o.task), env: spec.env });
  handOverClaim(setup.paths.claims, { task: o.task.id, worker: o.worker }, handle.pid);
  return { worker: o.worker, task: o.task, kind: o.assignment.kind, handle, dir, priorRun };
}

/**
 * After a coordinator crash: the process still working on `task`, if any — its claim's process, or
 * whoever holds the worktree's loop lock (a worker started just before the crash).
 */
export function liveWorkerOf(setup: WorkerSetup, task: ParallelTask): Claim | undefined {
  const claim = readClaims(setup.paths.claims).find((c) => c.task === task.id);
  if (claim && lockHolderAlive(claim) && claim.pid !== process.pid) return claim;
  const lock = liveHolder(ralphPaths(taskWorkspace(setup, task)).lock);
  // All of the holder (started_at too: lockHolderAlive tells a reused pid by it when start_time is unknown).
  if (lock) return { ...lock, task: task.id, worker: task.worker ?? 'w?' };
  return undefined;
}

export function adopt(setup: WorkerSetup, task: ParallelTask, claim: Claim): ActiveWorker {
  handOverClaim(setup.paths.claims, claim, claim.pid);
  return {
    worker: claim.worker,
    task,
    kind: 'task',
    handle: adoptWorker(claim),
    dir: taskWorkspace(setup, task),
  };
}

export function release(setup: WorkerSetup, task: ParallelTask): void {
  releaseClaim(setup.paths.claims, task.id);
}

/** The worker slots as the TUI and console show them. */
export function workerViews(active: Iterable<ActiveWorker>, slots: number): WorkerView[] {
  const byWorker = new Map([...active].map((a) => [a.worker, a]));
  const views: WorkerView[] = [];
  for (let i = 1; i <= slots; i++) {
    const a = byWorker.get(`w${i}`);
    views.push(a ? viewOf(a) : idle(`w${i}`));
  }
  const merge = byWorker.get('merge');
  if (merge) views.push(viewOf(merge));
  return views;
}

function idle(worker: string): WorkerView {
  return { worker, task: null, title: null, kind: null, pid: null, iteration: 0, costUsd: 0, status: 'idle' };
}

function viewOf(a: ActiveWorker): WorkerView {
  const s = loopStateOf(a.dir);
  return {
    worker: a.worker,
    task: a.task.id,
    title: a.task.title,
    kind: a.kind,
    pid: a.handle.pid,
    iteration: s ? (s.current?.number ?? s.iterations) : 0,
    costUsd: s?.cost_usd ?? 0,
    status: s?.status ?? 'starting',
  };
}
