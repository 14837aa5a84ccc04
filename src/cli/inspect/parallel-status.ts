import { formatCost } from '../../observe/format.ts';
import { loopStateOf } from '../../state/loop-state.ts';
import {
  coordinatorPid,
  type ParallelState,
  parallelPaths,
  readParallelState,
  repoTopOf,
  workerWorkspace,
} from '../../state/parallel-files.ts';

/** The parallel run of this workspace, if there ever was one, and whether its coordinator runs. */
export function readParallelStatus(
  workspace: string,
): { state: ParallelState; running: boolean; pid: number | null } | undefined {
  const state = readParallelState(parallelPaths(workspace).state);
  if (!state) return undefined;
  const pid = coordinatorPid(workspace, state);
  return { state, running: pid !== null, pid };
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
      const w = loopStateOf(workerWorkspace(repoTopOf(workspace), workspace, t.worktree));
      detail = w ? ` — iteration ${w.current?.number ?? w.iterations}, ${w.status}` : '';
    }
    const why = t.reason ? ` (${t.reason})` : '';
    const pr = t.pr
      ? ` — PR #${t.pr.number} ${t.pr.status === 'open' ? 'waiting to be merged' : t.pr.status} (${t.pr.url})`
      : '';
    lines.push(
      `  ${t.id}  ${t.state}${t.worker && t.state === 'working' ? ` by ${t.worker}` : ''}  "${t.title}"${detail}${pr}${why}`,
    );
  }
  return lines;
}
