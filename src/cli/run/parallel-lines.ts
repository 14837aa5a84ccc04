import pc from 'picocolors';
import { describeEvent, describeWorker } from '../../observe/describe-event.ts';
import type { ParallelEvent, WorkerView } from '../../observe/parallel-events.ts';

/** The console lines of one parallel run. */
export interface ParallelLines {
  /**
   * One line per parallel event worth a line (`describeEvent`'s wording, coloured), or null;
   * progress only when a worker's task, iteration or status changed since this run's last line.
   */
  format(e: ParallelEvent, color: boolean): string | null;
}

/** The lines of one run: what each worker last showed is this run's, never another run's in the process. */
export function createParallelLines(): ParallelLines {
  // Worker → the task:iteration:status its last progress line showed.
  const seen = new Map<string, string>();
  return { format: (e, color) => formatParallelEvent(e, color, seen) };
}

function formatParallelEvent(e: ParallelEvent, color: boolean, seen: Map<string, string>): string | null {
  const c = pc.createColors(color);
  const text = describeEvent(e);
  switch (e.type) {
    case 'parallel.started':
    case 'parallel.limit':
    case 'parallel.finished':
      return e.type === 'parallel.limit' ? c.yellow(`ralph: ${text}`) : `ralph: ${text}`;
    case 'worker.started':
    case 'worker.finished':
      // The worker's name stands out: it is what the lines of one worker have in common.
      return `${c.cyan(e.worker)}${text.slice(e.worker.length)}`;
    case 'workers.progress':
      return progressLine(e.workers, seen);
    case 'task.state':
      return e.state === 'failed' || e.state === 'needs_review' ? c.yellow(text) : null;
    case 'merge.conflict':
      return c.yellow(text);
    case 'merge.gates':
      return e.phase === 'started' ? null : text;
    case 'merge.merged':
      return c.green(text);
    case 'merge.pull_request':
      return e.action === 'closed' || e.action === 'unreachable' ? c.yellow(text) : text;
    case 'merge.started':
      return text;
  }
}

function progressLine(views: readonly WorkerView[], seen: Map<string, string>): string | null {
  const lines: string[] = [];
  for (const v of views) {
    if (v.task === null) continue;
    const key = `${v.task}:${v.iteration}:${v.status}`;
    if (seen.get(v.worker) === key) continue;
    seen.set(v.worker, key);
    if (v.iteration > 0) lines.push(describeWorker(v));
  }
  return lines.length ? lines.join('\n') : null;
}
