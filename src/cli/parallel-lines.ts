import pc from 'picocolors';
import type { ParallelEvent, WorkerView } from '../observe/parallel-events.ts';

const seen = new Map<string, string>();

/** One console line per parallel event worth a line; progress only when a worker's iteration changes. */
export function formatParallelEvent(e: ParallelEvent, color: boolean): string | null {
  const c = pc.createColors(color);
  switch (e.type) {
    case 'parallel.started':
      return `ralph: parallel run ${e.id}${e.resumed ? ' (resumed)' : ''} — ${e.workers} worker(s), ${e.source} tasks, merging into ${e.target}`;
    case 'worker.started':
      return `${c.cyan(e.worker)} ${e.adopted ? 'still works on' : e.kind === 'resolve' ? 'resolves a merge conflict of' : 'took'} ${e.task} "${e.title}" (pid ${e.pid}, worktree .ralph/worktrees/${e.worktree})`;
    case 'worker.finished':
      return `${c.cyan(e.worker)} finished ${e.task}: ${e.outcome} (${e.iterations} iteration(s), $${e.costUsd.toFixed(4)})`;
    case 'workers.progress':
      return progressLine(e.workers);
    case 'task.state':
      return e.state === 'failed' || e.state === 'needs_review'
        ? c.yellow(`task ${e.task} "${e.title}": ${e.state}${e.reason ? ` — ${e.reason}` : ''}`)
        : null;
    case 'merge.started':
      return `merge ${e.task} "${e.title}": rebasing onto the target`;
    case 'merge.conflict':
      return c.yellow(`merge ${e.task}: conflict in ${e.files.join(', ')} (attempt ${e.attempt})`);
    case 'merge.gates':
      return e.phase === 'started'
        ? null
        : `merge ${e.task}: gates ${e.phase}${e.summary ? ` — ${e.summary}` : ''}`;
    case 'merge.merged':
      return c.green(`merged ${e.task} "${e.title}" at ${e.commit.slice(0, 8)}`);
    case 'parallel.limit':
      return c.yellow(`ralph: ${e.message}`);
    case 'parallel.finished':
      return `ralph: parallel run ${e.reason} — ${e.merged}/${e.total} task(s) merged. ${e.message}`;
  }
}

function progressLine(views: readonly WorkerView[]): string | null {
  const lines: string[] = [];
  for (const v of views) {
    if (v.task === null) continue;
    const key = `${v.task}:${v.iteration}:${v.status}`;
    if (seen.get(v.worker) === key) continue;
    seen.set(v.worker, key);
    if (v.iteration > 0) lines.push(`${v.worker} ${v.task}: iteration ${v.iteration} (${v.status})`);
  }
  return lines.length ? lines.join('\n') : null;
}
