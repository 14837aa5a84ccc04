import { join } from 'node:path';
import { formatCost } from '../observe/format.ts';
import { lockHolderAlive, readLock } from '../state/lock.ts';
import { readLoopState } from '../state/loop-state.ts';
import { type ParallelState, parallelPaths, readParallelState } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';

/** The parallel run of this workspace, if there ever was one, and whether its coordinator runs. */
export function readParallelStatus(
  workspace: string,
): { state: ParallelState; running: boolean; pid: number | null } | undefined {
  const state = readParallelState(parallelPaths(workspace).state);
  if (!state) return undefined;
  const lock = readLock(ralphPaths(workspace).lock);
  const running = lock !== undefined && lock.run_id === state.id && lockHolderAlive(lock);
  return { state, running, pid: running ? (lock?.pid ?? null) : null };
}

/** `ralph status` lines of a parallel run: the run, then one line per task with its worker's progress. */
export function parallelStatusLines(
  workspace: string,
  s: NonNullable<ReturnType<typeof readParallelStatus>>,
): string[] {
  const { state } = s;
  const tasks = Object.values(state.tasks);
  const merged = tasks.filter((t) => t.state === 'merged').length;
  const cost = tasks.flatMap((t) => Object.values(t.runs)).reduce((n, r) => n + r.cost_usd, 0);
  const how = s.running
    ? `running (pid ${s.pid})`
    : state.status === 'running'
      ? 'not running (its coordinator died: `ralph run --parallel N --resume` goes on)'
      : `${state.status}${state.stop_reason && state.stop_reason !== state.status ? `: ${state.stop_reason}` : ''}`;
  const lines = [
    `parallel run ${state.id} — ${how}`,
    `  ${state.workers} worker(s), ${state.source} tasks, merging into ${state.target}; ${merged}/${tasks.length} merged, cost ${formatCost(cost)}${state.queue.length ? `, merge queue: ${state.queue.join(', ')}` : ''}`,
  ];
  for (const t of tasks) {
    let detail = '';
    if (t.state === 'working') {
      const w = readLoopState(ralphPaths(join(workspace, '.ralph', 'worktrees', t.worktree)).state);
      detail = w ? ` — iteration ${w.current?.number ?? w.iterations}, ${w.status}` : '';
    }
    const why = t.reason ? ` (${t.reason})` : '';
    lines.push(
      `  ${t.id}  ${t.state}${t.worker && t.state === 'working' ? ` by ${t.worker}` : ''}  "${t.title}"${detail}${why}`,
    );
  }
  return lines;
}
