import type { MetricConfig } from '../../config/schema/metric.ts';
import { formatFigure as fmt } from '../../observe/format.ts';
import type { MetricNote, MetricProgress } from '../../state/loop-state.ts';

/**
 * The prompt's `## Metric` section: the goal, the best result so far, the recent kept ideas and the
 * failed ones (bounded by the state: metric-step keeps the latest few), so the agent does not retry
 * what failed. None before the first attempt: the first prompt is the one `ralph run --dry-run`
 * shows, which measures nothing.
 */
export function metricBlock(m: MetricConfig | undefined, progress: MetricProgress | undefined): string {
  if (!m || !progress || progress.kept.length + progress.failed.length === 0) return '';
  const better = m.direction === 'min' ? 'lower is better' : 'higher is better';
  const { best, baseline } = progress;
  const lines = [
    '## Metric',
    `\`${m.command}\` (${better}). Baseline ${fmt(baseline.value)}; best so far ${fmt(best.value)}${best.iteration > 0 ? ` (iteration ${best.iteration}, commit ${best.commit?.slice(0, 12) ?? '?'})` : ' (the baseline)'}, spread ${fmt(best.spread)} over ${best.values.length} runs.${m.target !== undefined ? ` Target: ${fmt(m.target)}.` : ''}`,
    'Make one change that improves it. Ralph measures the result and keeps the commit only when it beats the best by more than the noise; otherwise it is rolled back. End your final message with one line that says the idea you tried.',
  ];
  if (progress.kept.length > 0) lines.push('', 'Kept (worked):', ...progress.kept.map(noteLine));
  if (progress.failed.length > 0)
    lines.push('', 'Tried and not kept (do not retry these):', ...progress.failed.map(noteLine));
  return lines.join('\n');
}

function noteLine(n: MetricNote): string {
  return `- iteration ${n.iteration}: ${n.idea} → ${n.value === null ? 'not measured' : fmt(n.value)} (${n.why})`;
}
