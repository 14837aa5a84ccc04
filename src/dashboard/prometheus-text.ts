/**
 * The Prometheus text exposition format, version 0.0.4 (pure): HELP and TYPE lines, escaped label
 * values, histograms as cumulative `_bucket{le=…}` series ending at `+Inf`, then `_sum` and `_count`.
 */

/** The Content-Type a scrape answers with. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels = Readonly<Record<string, string>>;

/** Observations folded into buckets: `counts[i]` falls in (bounds[i-1], bounds[i]]; the last entry is above every bound. */
export interface HistogramValue {
  counts: number[];
  sum: number;
  count: number;
}

export type MetricFamily =
  | {
      name: string;
      help: string;
      type: 'counter' | 'gauge';
      samples: readonly { labels: Labels; value: number }[];
    }
  | {
      name: string;
      help: string;
      type: 'histogram';
      /** Upper bounds, ascending; `+Inf` is added. */
      bounds: readonly number[];
      samples: readonly { labels: Labels; value: HistogramValue }[];
    };

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** An empty histogram for `bounds`. */
export function emptyHistogram(bounds: readonly number[]): HistogramValue {
  return { counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 };
}

/** Adds one observation to `h` (in place). */
export function observe(h: HistogramValue, bounds: readonly number[], value: number): void {
  const i = bounds.findIndex((b) => value <= b);
  const slot = i < 0 ? bounds.length : i;
  h.counts[slot] = (h.counts[slot] ?? 0) + 1;
  h.sum += value;
  h.count += 1;
}

/** A label value as the format wants it: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: backslash and line feed escaped (quotes stay). */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value: Go's float syntax, with NaN and the infinities spelled as the format spells them. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => {
    if (!LABEL_NAME.test(k) || k.startsWith('__')) throw new Error(`invalid label name ${JSON.stringify(k)}`);
    return `${k}="${escapeLabelValue(v)}"`;
  });
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function histogramLines(
  name: string,
  bounds: readonly number[],
  labels: Labels,
  h: HistogramValue,
): string[] {
  if ('le' in labels) throw new Error(`histogram ${name}: the label le is reserved`);
  let cumulative = 0;
  const lines = [...bounds, Number.POSITIVE_INFINITY].map((bound, i) => {
    cumulative += h.counts[i] ?? 0;
    return `${name}_bucket${labelText({ ...labels, le: formatValue(bound) })} ${cumulative}`;
  });
  lines.push(`${name}_sum${labelText(labels)} ${formatValue(h.sum)}`);
  lines.push(`${name}_count${labelText(labels)} ${h.count}`);
  return lines;
}

/** The exposition text of `families` (each name once; a family without samples keeps its HELP/TYPE). */
export function renderExposition(families: readonly MetricFamily[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const f of families) {
    if (!METRIC_NAME.test(f.name)) throw new Error(`invalid metric name ${JSON.stringify(f.name)}`);
    if (seen.has(f.name)) throw new Error(`metric ${f.name} given twice`);
    seen.add(f.name);
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    if (f.type === 'histogram') {
      const sorted = [...f.bounds].every((b, i, all) => i === 0 || b > (all[i - 1] as number));
      if (!sorted) throw new Error(`histogram ${f.name}: bucket bounds must ascend`);
      for (const s of f.samples) out.push(...histogramLines(f.name, f.bounds, s.labels, s.value));
    } else for (const s of f.samples) out.push(`${f.name}${labelText(s.labels)} ${formatValue(s.value)}`);
  }
  return `${out.join('\n')}\n`;
}
