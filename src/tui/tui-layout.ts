import { formatCost, formatNumber } from '../observe/format.ts';
import { formatSpan } from '../state/io/time-format.ts';
import { breakAtWords, clean, clip } from './text-fit.ts';
import type { TuiModel } from './tui-model.ts';

/** The limits the header's bars are drawn against (undefined: no bar). */
export interface TuiLimits {
  maxCostUsd: number | undefined;
  maxTokens: number | undefined;
  maxRuntimeMs: number | undefined;
}

/** Tokens, cost and runtime, each against its limit with a bar when there is one. */
export function usageParts(tokens: number, costUsd: number, elapsedMs: number, limits: TuiLimits): string[] {
  const parts = [
    limits.maxTokens !== undefined
      ? `tokens ${formatNumber(tokens)} of ${formatNumber(limits.maxTokens)} ${bar(tokens, limits.maxTokens)}`
      : `tokens ${formatNumber(tokens)}`,
    limits.maxCostUsd !== undefined
      ? `cost ${formatCost(costUsd)} of ${formatCost(limits.maxCostUsd)} ${bar(costUsd, limits.maxCostUsd)}`
      : `cost ${formatCost(costUsd)}`,
  ];
  if (limits.maxRuntimeMs !== undefined)
    parts.push(`runtime of ${formatSpan(limits.maxRuntimeMs)} ${bar(elapsedMs, limits.maxRuntimeMs)}`);
  return parts;
}

/** The limits a header shows, from `event_loop`. */
export function tuiLimits(l: {
  max_cost_usd?: number | undefined;
  max_tokens?: number | undefined;
  max_runtime_seconds: number;
}): TuiLimits {
  return { maxCostUsd: l.max_cost_usd, maxTokens: l.max_tokens, maxRuntimeMs: l.max_runtime_seconds * 1000 };
}

/** Wraps one line into rows of at most `width` columns, at word boundaries where a word fits. */
export function wrap(line: string, width: number): string[] {
  return breakAtWords(clean(line), width, width);
}

/**
 * The rows of the output pane: the newest `height` rows after wrapping, `scroll` rows up from the
 * bottom (0 follows the output).
 */
export function outputRows(m: TuiModel, width: number, height: number, scroll: number): string[] {
  const lines = m.partial ? [...m.output, m.partial] : m.output;
  const rows: string[] = [];
  // Wrap from the end: only as many lines as can be shown are wrapped, however long the history.
  for (let i = lines.length - 1; i >= 0 && rows.length < height + scroll; i--)
    rows.unshift(...wrap(lines[i] as string, width));
  // Scrolled past the top: the oldest rows stay in view.
  const end = Math.max(Math.min(height, rows.length), rows.length - scroll);
  return rows.slice(Math.max(0, end - height), end);
}

/** `▓▓▓░░░░░ 38%` */
export function bar(used: number, max: number, width = 8): string {
  const share = max > 0 ? Math.min(1, used / max) : 0;
  const full = Math.round(share * width);
  return `${'▓'.repeat(full)}${'░'.repeat(width - full)} ${Math.round(share * 100)}%`;
}

/** What the loop is doing, in a few words (the header's last part). */
export function phaseText(m: TuiModel, now: number): string {
  const p = m.phase;
  switch (p.kind) {
    case 'starting':
      return 'starting';
    case 'running':
      return 'running';
    case 'paused':
      return 'PAUSED — p resumes';
    case 'parked':
      return `parked ${formatSpan(Math.max(0, p.until - now))} — ${p.message}`;
    case 'idle':
      return `idle — waiting for changes${p.watch.length ? ` in ${p.watch.join(', ')}` : ''}`;
    case 'waiting':
      return `WAITING FOR YOU — ${p.question.kind} ${p.question.id}`;
    case 'merge':
      return `WAITING FOR MERGE — PR #${p.number} ${p.url}`;
    case 'finished':
      return `stopped: ${p.reason}`;
  }
}

/** The run's runtime now: it counts between iterations too (a pause or an idle wait is runtime). */
export function runtimeOf(m: TuiModel, now: number): number {
  return m.clockBase + (m.clockAt === null ? 0 : Math.max(0, now - m.clockAt));
}

/** The header's lines: who and where, then the counters against their limits. */
export function headerLines(m: TuiModel, limits: TuiLimits, now: number, width: number): string[] {
  const elapsed = runtimeOf(m, now);
  const first = [
    `ralph ${m.runId ?? ''}`.trim(),
    m.backend,
    m.branch,
    m.hat ? `hat ${m.hat}` : undefined,
    `iteration ${m.iteration}/${m.maxIterations}`,
    formatSpan(elapsed),
  ]
    .filter((x) => x)
    .join(' · ');
  const used = m.tokens + m.iterationTokens;
  const progress = m.progress ? `tasks ${m.progress.tasksDone}/${m.progress.tasksTotal}` : undefined;
  const second = [...usageParts(used, m.costUsd, elapsed, limits), progress].filter((x) => x).join(' · ');
  return [clip(first, width), clip(second, width), clip(phaseText(m, now), width)];
}

/** One row of the iterations pane: `#3 ✓ 12s 4.1k $0.02 3 files`. */
export function iterationRow(r: TuiModel['iterations'][number], width: number): string {
  const mark =
    r.verdict === 'success' || r.verdict === 'complete' ? '✓' : r.verdict === 'failure' ? '✗' : '·';
  const files = r.filesChanged === null ? '' : ` ${r.filesChanged}f`;
  const cost = r.costUsd === null ? '' : ` ${formatCost(r.costUsd)}`;
  return clip(
    `#${r.iteration} ${mark} ${r.verdict} ${formatSpan(r.durationMs)} ${formatNumber(r.tokens)}t${cost}${files}`,
    width,
  );
}
