import { addTotals } from '../../agent/usage-meter.ts';
import type { TokenTotals } from '../../state/iteration-record-shape.ts';
import type { LimitsPart } from '../../state/loop-state/shape.ts';
import { addSample, type UsageSample } from '../decide/budget-projection.ts';

// The owner of what the run has used against its limits (LimitsPart): iterations and failures,
// spend, runtime, parks, limit warnings. Every step records its use through these.

/** A finished (not aborted, not parked) iteration: its number counts once, a failure extends the streak. */
export function countFinished(state: LimitsPart, number: number, failed: boolean): void {
  state.iterations = Math.max(state.iterations, number);
  state.consecutive_failures = failed ? state.consecutive_failures + 1 : 0;
}

/** Tokens and dollars an agent (the iteration's, or a reviewer) spent. */
export function recordSpend(state: LimitsPart, tokens: TokenTotals, costUsd: number): void {
  state.tokens = addTotals(state.tokens, tokens);
  state.cost_usd += costUsd;
}

/** The runtime used so far, previous sessions included (the run context's clock). */
export function noteElapsed(state: LimitsPart, elapsedMs: number): void {
  state.elapsed_ms = elapsedMs;
}

/** A finished iteration's usage, for the projection of the next (budget foresight). */
export function addUsageSample(state: LimitsPart, sample: UsageSample): void {
  state.usage_samples = addSample(state.usage_samples ?? [], sample);
}

/** The limit warnings given at a boundary (each limit's highest percent so far; none: the book opens). */
export function noteLimitWarnings(
  state: LimitsPart,
  given: readonly { limit: string; percent: number }[],
): void {
  const warned = state.limit_warnings ?? {};
  for (const w of given) warned[w.limit] = w.percent;
  state.limit_warnings = warned;
}

/** A rate or usage limit (or a transient API error) parked an iteration: one more park in a row. */
export function countPark(state: LimitsPart, transient: boolean): void {
  const parks = state.parks ?? { rateLimit: 0, transient: 0 };
  state.parks = transient
    ? { ...parks, transient: parks.transient + 1 }
    : { ...parks, rateLimit: parks.rateLimit + 1 };
}

/** The loop waits until `parked.until` (epoch ms) before it runs the parked iteration again (null: no wait). */
export function parkUntil(state: LimitsPart, parked: LimitsPart['parked']): void {
  state.parked = parked;
}

/** An iteration finished: the parks in a row start again from none. */
export function resetParks(state: LimitsPart): void {
  state.parks = { rateLimit: 0, transient: 0 };
}
