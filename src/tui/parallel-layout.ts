import { formatCost } from '../observe/format.ts';
import { formatSpan } from '../state/io/time-format.ts';
import type { ParallelModel, SlotInput } from './parallel-model.ts';
import { totalTasks } from './parallel-model.ts';
import { clean, clip } from './text-fit.ts';
import { type TuiLimits, usageParts } from './tui-layout.ts';

/** The header: run, target and tasks; then the shared limits; then what the run is doing. */
export function parallelHeader(m: ParallelModel, limits: TuiLimits, now: number, width: number): string[] {
  const elapsed = m.startedAt === null ? 0 : Math.max(0, now - m.startedAt);
  const first = [
    `ralph parallel ${m.id ?? ''}`.trim() + (m.resumed ? ' (resumed)' : ''),
    m.target ? `into ${m.target}` : undefined,
    `${m.slots} workers`,
    `tasks ${m.merged}/${totalTasks(m)} merged`,
    formatSpan(elapsed),
  ]
    .filter((x) => x)
    .join(' · ');
  const second = usageParts(m.tokens, m.costUsd, elapsed, limits).join(' · ');
  const phase = m.finished
    ? `finished: ${m.finished.reason}`
    : m.stopping
      ? `stopping — ${m.stopping}`
      : `running · ${m.workers.filter((w) => w.task !== null).length} at work · ${m.queue.length} in the merge queue`;
  return [clip(first, width), clip(second, width), clip(phase, width)];
}

/** The lines of one worker's column: who, which task, how far, what it spent. */
export function slotLines(w: SlotInput): string[] {
  if (w.task === null) return [w.worker, 'idle'];
  return [
    `${w.worker}${w.kind === 'resolve' ? ' (resolving a conflict)' : ''}`,
    clean(w.title ?? ''),
    w.task,
    `iteration ${w.iteration} · ${w.status}`,
    `cost ${formatCost(w.costUsd)}`,
  ];
}

/** One line per worker, for terminals too narrow for columns. */
export function slotRow(w: SlotInput, width: number): string {
  if (w.task === null) return clip(`${w.worker}  idle`, width);
  return clip(
    `${w.worker}  #${w.iteration} ${w.status} ${formatCost(w.costUsd)}  ${w.task} ${clean(w.title ?? '')}`,
    width,
  );
}

/** Columns side by side when each gets at least this many columns; rows otherwise. */
export const MIN_COLUMN = 18;

/** The merge queue, oldest first: `task "title" — step`. */
export function queueLines(m: ParallelModel, width: number): string[] {
  if (m.queue.length === 0) return ['(empty)'];
  return m.queue.map((q) =>
    clip(`${q.task} "${clean(m.tasks.get(q.task)?.title ?? '')}" — ${q.step}`, width),
  );
}

/** The key line. */
export function parallelFooter(m: ParallelModel, flash: string): string {
  if (flash) return flash;
  if (m.finished) return `${m.finished.merged}/${m.finished.total} merged — ${m.finished.message}`;
  return 'q / Ctrl-C stop (each worker records its iteration) · Ctrl-C twice: force';
}
