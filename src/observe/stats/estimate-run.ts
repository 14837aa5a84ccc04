import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import { SOLO, sum } from './aggregate-stats.ts';
import type { RunHistory } from './run-history.ts';

/** A predicted quantity: the range it should fall in, and the single most likely value. */
export interface Range {
  low: number;
  expected: number;
  high: number;
}

/** The limits a run is held to (absent: no such limit). */
export interface EstimateLimits {
  max_iterations: number;
  max_runtime_seconds?: number | undefined;
  max_cost_usd?: number | undefined;
  max_tokens?: number | undefined;
}

/** How a limit compares with the predicted range. */
export type LimitVerdict = 'within' | 'may_stop' | 'likely_stops' | 'stops';

/** `ralph estimate --json` (documented in docs/operations/stats.md#json-shapes): keep it stable. */
export interface Estimate {
  based_on:
    | { kind: 'history'; runs: number; iterations: number; text: string }
    | { kind: 'size'; items: number; text: string };
  iterations: Range;
  tokens: Range;
  /** Null when no price is known (no history with costs, and no list price for the model). */
  cost_usd: Range | null;
  /** Time spent in iterations (agent and gates). */
  duration_ms: Range;
  limits: { limit: keyof EstimateLimits; max: number; verdict: LimitVerdict }[];
  /** The limit that would stop the run (verdict stops or likely_stops), first in the table's order; null: none. */
  stopped_by: keyof EstimateLimits | null;
}

const mean = (xs: readonly number[]) => (xs.length > 0 ? sum(xs) / xs.length : 0);
const spread = (xs: readonly number[]) => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};

/**
 * Per-iteration range of one measure: per hat, mean ± two standard deviations (at least as wide
 * as the samples, never negative), weighted by how often each hat ran.
 */
function perIteration(records: readonly IterationRecord[], measure: (r: IterationRecord) => number): Range {
  const hats = new Map<string, number[]>();
  for (const r of records) {
    const samples = hats.get(r.hat ?? SOLO);
    if (samples) samples.push(measure(r));
    else hats.set(r.hat ?? SOLO, [measure(r)]);
  }
  const out = { low: 0, expected: 0, high: 0 };
  for (const samples of hats.values()) {
    const share = samples.length / records.length;
    const m = mean(samples);
    const sd = spread(samples);
    out.low += share * Math.max(0, Math.min(m - 2 * sd, Math.min(...samples)));
    out.expected += share * m;
    out.high += share * Math.max(m + 2 * sd, Math.max(...samples));
  }
  return out;
}

/**
 * The estimate from earlier runs of the same setup: iterations between the fewest and the most a
 * run took, widened by 1 + 1/√runs (one run: a factor of two either way); tokens, cost and time as
 * that many iterations of the per-hat means and spreads.
 */
export function estimateFromHistory(runs: readonly RunHistory[], limits: EstimateLimits): Estimate {
  const records = runs.flatMap((r) => r.records);
  const counts = runs.map((r) => r.records.length);
  const widen = 1 + 1 / Math.sqrt(runs.length);
  const iterations = {
    low: Math.max(1, Math.floor(Math.min(...counts) / widen)),
    expected: Math.round(mean(counts)),
    high: Math.ceil(Math.max(...counts) * widen),
  };
  const total = (measure: (r: IterationRecord) => number): Range => {
    const each = perIteration(records, measure);
    return {
      low: iterations.low * each.low,
      expected: iterations.expected * each.expected,
      high: iterations.high * each.high,
    };
  };
  const costed = records.some((r) => r.cost_usd !== null);
  return withLimits(
    {
      based_on: {
        kind: 'history',
        runs: runs.length,
        iterations: records.length,
        text: `${runs.length} earlier run${runs.length === 1 ? '' : 's'} of this workspace with the same hats and backends (${records.length} iterations): per-hat means and spreads`,
      },
      iterations,
      tokens: total((r) => r.tokens.total),
      cost_usd: costed ? total((r) => r.cost_usd ?? 0) : null,
      duration_ms: total((r) => r.duration_ms),
    },
    limits,
  );
}

/** What a first run is estimated from: the work it sees and the price of its model. */
export interface SizeInput {
  /** Open work items (checklist tasks, open tasks, unchecked plan lines); 0: the prompt is one. */
  items: number;
  /** Where the items were counted. */
  itemsFrom: string;
  /** Hats an item passes through (1 in solo mode). */
  hats: number;
  promptBytes: number;
  /** USD per million input and output tokens of the model, when known. */
  price: { input: number; output: number; model: string } | undefined;
}

// Rules of thumb for a coding agent's iteration (tokens include the files it reads; time with tools).
const TOKENS_PER_ITERATION: Range = { low: 10_000, expected: 60_000, high: 250_000 };
const MS_PER_ITERATION: Range = { low: 30_000, expected: 180_000, high: 600_000 };
// Of an iteration's tokens, most are input (prompt, files, tool results).
const OUTPUT_SHARE = 0.1;

/** The estimate without history: per work item one iteration per hat, 1.5× expected, 3× at most. */
export function estimateFromSize(input: SizeInput, limits: EstimateLimits): Estimate {
  const items = Math.max(1, input.items);
  const passes = items * Math.max(1, input.hats);
  const iterations = { low: passes, expected: Math.ceil(passes * 1.5), high: passes * 3 };
  const promptTokens = Math.ceil(input.promptBytes / 4);
  const scale = (per: Range, extra = 0): Range => ({
    low: iterations.low * (per.low + extra),
    expected: iterations.expected * (per.expected + extra),
    high: iterations.high * (per.high + extra),
  });
  const tokens = scale(TOKENS_PER_ITERATION, promptTokens);
  const price = input.price;
  const usdPerToken = price
    ? ((1 - OUTPUT_SHARE) * price.input + OUTPUT_SHARE * price.output) / 1_000_000
    : 0;
  const what =
    input.items > 0
      ? `${input.items} open item${input.items === 1 ? '' : 's'} in ${input.itemsFrom}`
      : 'the prompt as one item';
  return withLimits(
    {
      based_on: {
        kind: 'size',
        items,
        text: `no earlier run of this setup: ${what}${input.hats > 1 ? ` × ${input.hats} hats` : ''}, a prompt of ${input.promptBytes} bytes, rules of thumb per iteration (${TOKENS_PER_ITERATION.expected / 1000}k tokens, ${MS_PER_ITERATION.expected / 60_000} min)${price ? ` and ${price.model}'s list price` : '; no list price for the model, so no cost'}`,
      },
      iterations,
      tokens,
      cost_usd: price
        ? {
            low: tokens.low * usdPerToken,
            expected: tokens.expected * usdPerToken,
            high: tokens.high * usdPerToken,
          }
        : null,
      duration_ms: scale(MS_PER_ITERATION),
    },
    limits,
  );
}

/** Where a limit stands against a range. */
export function limitVerdict(range: Range, max: number): LimitVerdict {
  if (range.low >= max) return 'stops';
  if (range.expected >= max) return 'likely_stops';
  if (range.high >= max) return 'may_stop';
  return 'within';
}

/** Adds the comparison with each limit set, and the one that would stop the run. */
function withLimits(e: Omit<Estimate, 'limits' | 'stopped_by'>, limits: EstimateLimits): Estimate {
  const checks: Estimate['limits'] = [];
  const check = (limit: keyof EstimateLimits, range: Range | null, max: number | undefined) => {
    if (range && max !== undefined) checks.push({ limit, max, verdict: limitVerdict(range, max) });
  };
  check('max_iterations', e.iterations, limits.max_iterations);
  const seconds = (r: Range) => ({ low: r.low / 1000, expected: r.expected / 1000, high: r.high / 1000 });
  check('max_runtime_seconds', seconds(e.duration_ms), limits.max_runtime_seconds);
  check('max_cost_usd', e.cost_usd, limits.max_cost_usd);
  check('max_tokens', e.tokens, limits.max_tokens);
  const stop = checks.find((c) => c.verdict === 'stops') ?? checks.find((c) => c.verdict === 'likely_stops');
  return { ...e, limits: checks, stopped_by: stop?.limit ?? null };
}
