import { existsSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { loopStateOf } from '../state/loop-state.ts';
import {
  coordinatorPid,
  type ParallelState,
  parallelPaths,
  readParallelState,
  repoTopOf,
  workerWorkspace,
} from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import { readRegistry } from '../state/run-registry.ts';
import { runKey } from './run-data.ts';

/** A worker at work on a task, from its worktree's own loop state. */
export interface ParallelWorkerView {
  worker: string;
  task: string;
  title: string;
  /** The worktree's workspace: a run of its own in the registry (its run page is /run/<key>). */
  workspace: string;
  key: string;
  iteration: number;
  maxIterations: number | null;
  costUsd: number;
  status: string;
}

/** A workspace's parallel run as the dashboard shows it. */
export interface ParallelRunView {
  key: string;
  workspace: string;
  /** Undefined with `error` when state.json is damaged. */
  state: ParallelState | undefined;
  error?: string;
  /** The coordinator holds the workspace's lock now. */
  alive: boolean;
  workers: ParallelWorkerView[];
}

// A worker's workspace is <repo>/.ralph/worktrees/<name>/<the coordinator's place in the repo>.
const WORKTREE = `${sep}.ralph${sep}worktrees${sep}`;

/**
 * The coordinating workspaces of the registered runs: each registered workspace that has a
 * parallel state, and the coordinator of each registered worker worktree (which may itself never
 * have run a plain loop, so it is not in the registry).
 */
export function parallelWorkspaces(env: NodeJS.ProcessEnv): string[] {
  const found = new Set<string>();
  for (const e of readRegistry(env)) {
    const candidates = [e.workspace];
    const at = e.workspace.indexOf(WORKTREE);
    if (at >= 0) {
      const rest = e.workspace
        .slice(at + WORKTREE.length)
        .split(sep)
        .slice(1);
      candidates.push(join(e.workspace.slice(0, at), ...rest));
    }
    for (const ws of candidates) if (existsSync(parallelPaths(ws).state)) found.add(ws);
  }
  return [...found];
}

export function readParallelRun(workspace: string): ParallelRunView {
  const key = runKey(workspace);
  const base = { key, workspace, workers: [] as ParallelWorkerView[] };
  let state: ParallelState | undefined;
  try {
    state = readParallelState(parallelPaths(workspace).state);
  } catch (error) {
    return { ...base, state: undefined, alive: false, error: (error as Error).message };
  }
  // The lock is the coordinator's while it names this parallel run.
  const alive = state !== undefined && coordinatorPid(workspace, state) !== null;
  if (!state) return { ...base, state, alive };
  const repo = repoTopOf(workspace);
  for (const t of Object.values(state.tasks)) {
    if (t.state !== 'working' && !(t.state === 'merging' && t.worker === 'merge')) continue;
    const dir = workerWorkspace(repo, workspace, t.worktree);
    const s = loopStateOf(dir);
    base.workers.push({
      worker: t.worker ?? '?',
      task: t.id,
      title: t.title,
      workspace: dir,
      key: runKey(dir),
      iteration: s ? (s.current?.number ?? s.iterations) : 0,
      maxIterations: s?.max_iterations ?? null,
      costUsd: s?.cost_usd ?? 0,
      status: s?.status ?? 'starting',
    });
  }
  // Slots in order (w1, w2 … w10), the merge queue's resolver last.
  base.workers.sort((a, b) => a.worker.localeCompare(b.worker, 'en', { numeric: true }));
  return { ...base, state, alive };
}

export function findParallel(env: NodeJS.ProcessEnv, key: string): ParallelRunView | undefined {
  const ws = parallelWorkspaces(env).find((w) => runKey(w) === key);
  return ws ? readParallelRun(ws) : undefined;
}

/**
 * What changes when the view would: the coordinator's state file and each worker's loop state
 * (their sizes and times). The SSE stream sends an event when it differs.
 */
export function parallelSignature(view: ParallelRunView): string {
  const stamp = (path: string) => {
    try {
      const s = statSync(path);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  return [
    stamp(parallelPaths(view.workspace).state),
    String(view.alive),
    ...view.workers.map((w) => `${w.task}@${stamp(ralphPaths(w.workspace).state)}`),
  ].join('|');
}
