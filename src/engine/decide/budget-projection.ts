import type { Counters, Limits } from './limits.ts';

/** What one finished iteration used, by hat and backend (kept in state for the projection). */
export interface UsageSample {
  hat: string | null;
  backend: string;
  costUsd: number;
  tokens: number;
}

/** Samples kept in state.json. */
export const MAX_SAMPLES = 12;
/** Iterations of the same hat and backend the projection averages. */
export const WINDOW = 3;

/**
 * The next iteration's expected usage (pure): the mean of the last WINDOW iterations of the same hat
 * and backend, else of the last WINDOW of any; undefined before the first iteration.
 */
export function projectNext(
  samples: readonly UsageSample[],
  next: { hat: string | null; backend: string },
): { costUsd: number; tokens: number } | undefined {
  const same = samples.filter((s) => s.hat === next.hat && s.backend === next.backend).slice(-WINDOW);
  const pool = same.length > 0 ? same : samples.slice(-WINDOW);
  if (pool.length === 0) return undefined;
  const mean = (f: (s: UsageSample) => number) => pool.reduce((a, s) => a + f(s), 0) / pool.length;
  return { costUsd: mean((s) => s.costUsd), tokens: mean((s) => s.tokens) };
}

/**
 * Budget foresight (pure): the message when the projected next iteration would cross
 * `max_cost_usd` or `max_tokens`, so it is not started.
 */
export function projectedOverrun(
  c: Counters,
  l: Limits,
  projected: { costUsd: number; tokens: number } | undefined,
): { reason: 'max_cost' | 'max_tokens'; message: string } | undefined {
  if (!projected) return undefined;
  if (l.maxCostUsd !== undefined && projected.costUsd > 0 && c.costUsd + projected.costUsd > l.maxCostUsd)
    return {
      reason: 'max_cost',
      message: `next iteration projected at $${projected.costUsd.toFixed(4)}, $${Math.max(0, l.maxCostUsd - c.costUsd).toFixed(4)} left of max_cost_usd ($${l.maxCostUsd}); not started`,
    };
  if (l.maxTokens !== undefined && projected.tokens > 0 && c.tokens + projected.tokens > l.maxTokens)
    return {
      reason: 'max_tokens',
      message: `next iteration projected at ${Math.round(projected.tokens)} tokens, ${Math.max(0, l.maxTokens - c.tokens)} left of max_tokens (${l.maxTokens}); not started`,
    };
  return undefined;
}

/** Adds a finished iteration's usage, keeping the newest MAX_SAMPLES. */
export function addSample(samples: readonly UsageSample[], s: UsageSample): UsageSample[] {
  return [...samples, s].slice(-MAX_SAMPLES);
}
