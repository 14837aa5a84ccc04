import type { MetricConfig } from '../../config/schema/metric.ts';
import { formatFigure as fmt } from '../../observe/format.ts';

/** One result measured `repeats` times: the median is its value, max − min its noise. */
export interface Measurement {
  values: number[];
  value: number;
  spread: number;
}

/** The best result so far (iteration 0: the baseline at run start). */
export interface MetricBest extends Measurement {
  iteration: number;
  commit: string | null;
}

/** What the metric loop decided about one attempt. */
export interface MetricDecision {
  keep: boolean;
  /** How much better than the best so far (negative: worse), in the metric's units. */
  improvement: number;
  /** The noise the improvement had to beat: the larger spread of the best and the candidate. */
  noise: number;
  why: string;
}

/** The number in a command's output: the last match of `pattern`'s capture group, or `json_path`. */
export function parseMeasurement(
  output: string,
  how: Pick<MetricConfig, 'pattern' | 'json_path'>,
): { value: number } | { error: string } {
  let raw: unknown;
  if (how.pattern !== undefined) {
    const matches = [...output.matchAll(new RegExp(how.pattern, 'g'))];
    const last = matches.at(-1);
    if (!last) return { error: `no match for metric.pattern /${how.pattern}/ in the output` };
    raw = last[1];
  } else {
    let doc: unknown;
    try {
      doc = JSON.parse(output);
    } catch {
      return {
        error: 'the output is not JSON (metric.json_path needs the command to print one JSON document)',
      };
    }
    raw = jsonPathValue(doc, how.json_path ?? '');
    if (raw === undefined) return { error: `metric.json_path ${how.json_path} is not in the output` };
  }
  const value =
    typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(value))
    return { error: `the metric is not a number: ${JSON.stringify(raw).slice(0, 80)}` };
  return { value };
}

function jsonPathValue(doc: unknown, path: string): unknown {
  let at: unknown = doc;
  for (const key of path.match(/[^.[\]]+/g) ?? []) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The median and the spread of a result's repeated measurements (at least one). */
export function summarizeMeasurements(values: number[]): Measurement {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value =
    sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
  return { values, value, spread: (sorted.at(-1) ?? NaN) - (sorted[0] ?? NaN) };
}

/**
 * Keep a candidate only when it beats the best so far by more than the measured noise (the larger
 * spread of the two results' repeats) and by more than `min_improvement`.
 */
export function decideAttempt(
  best: Measurement,
  candidate: Measurement,
  m: Pick<MetricConfig, 'direction' | 'min_improvement'>,
): MetricDecision {
  const improvement = m.direction === 'min' ? best.value - candidate.value : candidate.value - best.value;
  const noise = Math.max(best.spread, candidate.spread);
  const figures = `${fmt(candidate.value)} against the best ${fmt(best.value)}`;
  if (improvement <= 0) return { keep: false, improvement, noise, why: `no improvement: ${figures}` };
  if (improvement <= noise)
    return {
      keep: false,
      improvement,
      noise,
      why: `within the noise: ${figures} improves by ${fmt(improvement)}, the repeats spread ${fmt(noise)}`,
    };
  if (improvement <= m.min_improvement)
    return {
      keep: false,
      improvement,
      noise,
      why: `too small: ${figures} improves by ${fmt(improvement)}, metric.min_improvement is ${fmt(m.min_improvement)}`,
    };
  return {
    keep: true,
    improvement,
    noise,
    why: `improved: ${figures} (by ${fmt(improvement)}, noise ${fmt(noise)})`,
  };
}

/** The best value has reached `metric.target`. */
export function targetReached(
  best: Pick<Measurement, 'value'>,
  m: Pick<MetricConfig, 'direction' | 'target'>,
): boolean {
  if (m.target === undefined) return false;
  return m.direction === 'min' ? best.value <= m.target : best.value >= m.target;
}
