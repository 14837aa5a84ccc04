import { formatFigure as fmt } from '../../observe/format.ts';
import {
  bestOrigin,
  improvementText,
  type MetricSeries,
  metricGoal,
} from '../../observe/stats/metric-series.ts';
import { clip } from '../../tui/text-fit.ts';
import { sparkline } from './metric-sparkline.ts';

/** Columns of the sparkline: with its 9-character label it fits in 80 columns. */
const CHART_WIDTH = 64;
/** Runs `ralph stats` shows; `--json` has every one. */
const SHOWN_RUNS = 3;

/** One metric run: what it measured, baseline → best, the counts, and its sparkline. */
function runText(s: MetricSeries, unicode: boolean, withWorkspace: boolean, columns: number): string[] {
  const tail = ` (${metricGoal(s.direction)}), run ${s.run_id}${withWorkspace ? ` in ${s.workspace}` : ''}`;
  // A long command is cut so the line keeps its goal and run id (`--json` has it whole).
  const room = Math.max(12, columns - `metric \`\`${tail}`.length);
  const what = s.command === null ? 'the metric' : `\`${clip(s.command, room)}\``;
  const failed = s.measure_failed > 0 ? ` (${s.measure_failed} not measured)` : '';
  const lines = [
    `metric ${what}${tail}`,
    `  baseline ${fmt(s.baseline.value)} → best ${fmt(s.best.value)} (${bestOrigin(s.best)})${s.target === null ? '' : ` · target ${fmt(s.target)}`}`,
    `  improvement over the baseline: ${improvementText(s)}`,
    `  attempts ${s.attempts}: kept ${s.kept}, rolled back ${s.rolled_back}${failed}`,
  ];
  if (s.attempts === 0) return lines;
  const spark = sparkline(s.points, s.baseline.value, { width: CHART_WIDTH, unicode });
  const range = `attempts ${s.points[0]?.attempt}–${s.points.at(-1)?.attempt}`;
  lines.push(
    `  value  ${spark.values}`,
    ...(spark.kept ? [`  kept   ${spark.kept}`] : []),
    `         ${spark.lowMark} ${fmt(spark.low)} … ${spark.highMark} ${fmt(spark.high)} · ^ kept · ${range}`,
    ...(spark.perColumn > 1
      ? [`         a column: up to ${spark.perColumn} attempts (the mean of their values)`]
      : []),
  );
  return lines;
}

/**
 * The "metric" section of `ralph stats`: the latest few metric runs, each with a sparkline of the
 * value per attempt (block elements on a UTF-8 terminal, digits 1–8 otherwise). Empty without runs.
 */
export function metricStatsText(
  series: readonly MetricSeries[],
  unicode: boolean,
  withWorkspace: boolean,
  columns = 80,
): string {
  if (series.length === 0) return '';
  const shown = series.slice(-SHOWN_RUNS);
  const earlier = series.length - shown.length;
  const lines = [
    ...(earlier > 0
      ? [`… ${earlier} earlier metric run${earlier === 1 ? '' : 's'} (ralph stats --json has them)`]
      : []),
    ...shown.flatMap((s) => runText(s, unicode, withWorkspace, columns)),
  ];
  return `\n${lines.join('\n')}\n`;
}
