import type { MetricPoint } from '../../observe/stats/metric-series.ts';

/** Eight heights, lowest first: block elements on a UTF-8 terminal, digits elsewhere. */
const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
const DIGITS = ['1', '2', '3', '4', '5', '6', '7', '8'];

/** A bucket of attempts: indexes `[start, end)` of the series. */
export interface Bucket {
  start: number;
  end: number;
}

/**
 * `n` attempts in at most `width` columns: one per attempt when they fit, else contiguous buckets
 * whose sizes differ by at most one. Every attempt is in exactly one bucket, in order.
 */
export function bucketRanges(n: number, width: number): Bucket[] {
  const columns = Math.min(n, Math.max(1, Math.floor(width)));
  return Array.from({ length: n === 0 ? 0 : columns }, (_, i) => ({
    start: Math.floor((i * n) / columns),
    end: Math.floor(((i + 1) * n) / columns),
  }));
}

/** The rows of a metric's sparkline and what one column stands for. */
export interface Sparkline {
  /** One character per column: its height on the scale; `x` (× in Unicode) where nothing was measured. */
  values: string;
  /** `^` under a column with a kept attempt, a space elsewhere. */
  kept: string;
  /** Attempts per column (1: one column per attempt). */
  perColumn: number;
  /** The scale's ends: the lowest and highest value charted (the baseline included). */
  low: number;
  high: number;
  /** The characters of the lowest and highest height. */
  lowMark: string;
  highMark: string;
}

/**
 * The measured value per attempt as one line of heights (a bucket charts the mean of its measured
 * attempts), and a second line marking the kept ones. The scale spans the baseline and every value.
 * Pure; `width` columns at most.
 */
export function sparkline(
  points: readonly MetricPoint[],
  baseline: number,
  o: { width: number; unicode: boolean },
): Sparkline {
  const marks = o.unicode ? BLOCKS : DIGITS;
  const measured = points.flatMap((p) => (p.value === null ? [] : [p.value]));
  // reduce, not Math.min(...): a long run's values would overflow the call's arguments.
  const low = measured.reduce((a, v) => Math.min(a, v), baseline);
  const high = measured.reduce((a, v) => Math.max(a, v), baseline);
  const height = (v: number) =>
    high === low ? 3 : Math.min(7, Math.max(0, Math.round(((v - low) / (high - low)) * 7)));
  const buckets = bucketRanges(points.length, o.width);
  let values = '';
  let kept = '';
  for (const b of buckets) {
    const inBucket = points.slice(b.start, b.end);
    const vs = inBucket.flatMap((p) => (p.value === null ? [] : [p.value]));
    values +=
      vs.length === 0 ? (o.unicode ? '×' : 'x') : marks[height(vs.reduce((a, v) => a + v, 0) / vs.length)];
    kept += inBucket.some((p) => p.kept) ? '^' : ' ';
  }
  return {
    values,
    kept: kept.trimEnd(),
    perColumn: buckets.length === 0 ? 1 : Math.ceil(points.length / buckets.length),
    low,
    high,
    lowMark: marks[0] as string,
    highMark: marks[7] as string,
  };
}
