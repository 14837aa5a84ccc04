import pc from 'picocolors';
import { describeEvent, describeWorker } from '../../observe/describe-event.ts';
import type { ParallelEvent, WorkerView } from '../../observe/parallel-events.ts';

const seen = new Map<string, string>();

/**
 * One console line per parallel event worth a line (`describeEvent`'s wording, coloured);
 * progress only when a worker's iteration changes.
 */
export function formatParallelEvent(e: ParallelEvent, color: boolean): string | null {
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
      return progressLine(e.workers);
    case 'task.state':
      return e.state === 'failed' || e.state === 'needs_review' ? c.yellow(text) : null;
    case 'merge.conflict':
      return c.yellow(text);
    case 'merge.gates':
      return e.phase === 'started' ? null : text;
    case 'merge.merged':
      return c.green(text);
    case 'merge.started':
      return text;
  }
}

function progressLine(views: readonly WorkerView[]): string | null {
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
