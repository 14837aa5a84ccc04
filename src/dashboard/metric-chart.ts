import { formatFigure as fmt } from '../observe/format.ts';
import { type MetricSeries, metricGoal } from '../observe/stats/metric-series.ts';
import { esc } from './charts.ts';

/** The drawing area: a viewBox of `width` × `height` with `pad` around the plot. */
export interface ChartBox {
  width: number;
  height: number;
  pad: number;
}

/** Where each piece of a metric chart goes, in viewBox units. */
export interface MetricChartGeometry {
  box: ChartBox;
  /** One per measured attempt (a failed measurement has no value: it is in `unmeasured`). */
  points: { x: number; y: number; kept: boolean; attempt: number; iteration: number; value: number }[];
  unmeasured: { x: number; attempt: number; iteration: number }[];
  /** The best-so-far step line from the baseline (attempt 0, the left edge) through every attempt. */
  best: { x: number; y: number }[];
  /** The baseline's mark (attempt 0) and the plot's left and right edges. */
  baselineY: number;
  left: number;
  right: number;
  targetY: number | null;
  /** The value scale's ends, as drawn at the plot's bottom and top. */
  low: number;
  high: number;
  radius: number;
}

export const METRIC_BOX: ChartBox = { width: 640, height: 220, pad: 28 };

/**
 * The chart's geometry (pure): attempts spread over the width (the baseline at the left edge), values
 * on a scale spanning the baseline, every value and the target, so every mark is inside the viewBox.
 */
export function metricChartGeometry(s: MetricSeries, box: ChartBox = METRIC_BOX): MetricChartGeometry {
  const measured = s.points.flatMap((p) => (p.value === null ? [] : [p.value]));
  const scale = [s.baseline.value, ...measured, ...(s.target === null ? [] : [s.target])];
  let low = scale.reduce((a, v) => Math.min(a, v));
  let high = scale.reduce((a, v) => Math.max(a, v));
  // Halves, so the span of two huge values cannot overflow to Infinity.
  const span = (a: number, b: number) => b / 2 - a / 2;
  if (!(span(low, high) > 0)) {
    // One value (or two a few subnormals apart): ±5% around it, or ±1 when 5% of it is 0.
    const half = Math.abs(low) * 0.05 > 0 ? Math.abs(low) * 0.05 : 1;
    low = Math.max(low - half, -Number.MAX_VALUE);
    high = Math.min(high + half, Number.MAX_VALUE);
  }
  const n = s.points.length;
  // Room on the left for the scale's figures.
  const left = box.pad + 16;
  const right = box.width - box.pad / 2;
  const top = box.pad / 2;
  const bottom = box.height - box.pad;
  const x = (i: number) => (n === 0 ? (left + right) / 2 : left + ((right - left) * i) / n);
  const y = (v: number) => bottom - ((bottom - top) * span(low, v)) / span(low, high);
  const points = s.points.flatMap((p, i) =>
    p.value === null
      ? []
      : [
          {
            x: x(i + 1),
            y: y(p.value),
            kept: p.kept,
            attempt: p.attempt,
            iteration: p.iteration,
            value: p.value,
          },
        ],
  );
  const unmeasured = s.points.flatMap((p, i) =>
    p.value === null ? [{ x: x(i + 1), attempt: p.attempt, iteration: p.iteration }] : [],
  );
  const best = [
    { x: x(0), y: y(s.baseline.value) },
    ...s.points.map((p, i) => ({ x: x(i + 1), y: y(p.best_so_far) })),
  ];
  const radius = Math.max(1.5, Math.min(4, (right - left) / Math.max(1, n) / 2.5));
  return {
    box,
    points,
    unmeasured,
    best,
    baselineY: y(s.baseline.value),
    left,
    right,
    targetY: s.target === null ? null : y(s.target),
    low,
    high,
    radius,
  };
}

const f = (n: number) => n.toFixed(1);

/**
 * One metric run as an inline SVG (no script, no fetch): kept attempts as filled dots, rolled-back
 * ones hollow, failed measurements as crosses on the axis, the best-so-far step line, the baseline
 * and the target as horizontal lines; a title and a description for screen readers.
 */
export function metricChartSvg(s: MetricSeries, id: string): string {
  const g = metricChartGeometry(s);
  const { width: w, height: h, pad } = g.box;
  const { left: l, right: r } = g;
  const axisY = h - pad;
  const title = `${s.command ?? 'metric'} per attempt (${metricGoal(s.direction)})`;
  const desc = `${s.attempts} attempts of run ${s.run_id}: ${s.kept} kept, ${s.rolled_back} rolled back; baseline ${fmt(s.baseline.value)}, best ${fmt(s.best.value)}${s.target === null ? '' : `, target ${fmt(s.target)}`}.`;
  const hline = (cls: string, y: number) =>
    `<line class="${cls}" x1="${l}" x2="${r}" y1="${f(y)}" y2="${f(y)}"/>`;
  const step = g.best.map((p, i) => (i === 0 ? `M${f(p.x)} ${f(p.y)}` : `H${f(p.x)} V${f(p.y)}`)).join(' ');
  const start = g.best[0] ?? { x: l, y: g.baselineY };
  const baseline = `<rect class="baseline-point" x="${f(start.x - 3)}" y="${f(start.y - 3)}" width="6" height="6"><title>baseline: ${esc(fmt(s.baseline.value))}</title></rect>`;
  const dots = g.points
    .map(
      (p) =>
        `<circle class="${p.kept ? 'kept' : 'rolled-back'}" cx="${f(p.x)}" cy="${f(p.y)}" r="${f(g.radius)}"><title>attempt ${p.attempt} (iteration ${p.iteration}): ${esc(fmt(p.value))} ${p.kept ? 'kept' : 'rolled back'}</title></circle>`,
    )
    .join('');
  const crosses = g.unmeasured
    .map(
      (p) =>
        `<path class="unmeasured" d="M${f(p.x - 3)} ${axisY - 3} l6 6 m0 -6 l-6 6"><title>attempt ${p.attempt} (iteration ${p.iteration}): not measured</title></path>`,
    )
    .join('');
  const target =
    g.targetY === null
      ? ''
      : `${hline('target', g.targetY)}<text x="${r}" y="${f(g.targetY - 3)}" text-anchor="end">target ${esc(fmt(s.target ?? 0))}</text>`;
  const labels = `<text x="2" y="${pad / 2 + 4}">${esc(fmt(g.high))}</text><text x="2" y="${axisY}">${esc(fmt(g.low))}</text><text x="${l}" y="${h - 8}">baseline</text><text x="${r}" y="${h - 8}" text-anchor="end">attempt ${s.points.at(-1)?.attempt ?? 0}</text>`;
  return `<svg class="metric-chart" viewBox="0 0 ${w} ${h}" role="img" aria-labelledby="${id}-title ${id}-desc"><title id="${id}-title">${esc(title)}</title><desc id="${id}-desc">${esc(desc)}</desc><line class="axis" x1="${l}" y1="${axisY}" x2="${r}" y2="${axisY}"/>${hline('baseline', g.baselineY)}${target}<path class="best" d="${step}"/>${baseline}${dots}${crosses}${labels}</svg>`;
}
