import { formatDuration } from '../../state/io/time-format.ts';
import type { Counters, Limits } from './limits.ts';

/** The shares of a limit at which Ralph warns, once each. */
export const WARN_AT_PERCENT = [50, 80, 95] as const;

export interface LimitWarning {
  limit: 'iterations' | 'runtime' | 'cost' | 'tokens';
  percent: number;
  message: string;
}

/**
 * The warnings due now (pure): for each limit, the highest threshold it has reached that was not
 * warned about yet (`warned` holds the highest percent already given per limit). Crossing two
 * thresholds at once gives one warning, at the higher.
 */
export function limitWarnings(
  c: Counters,
  l: Limits,
  warned: Readonly<Record<string, number>>,
): LimitWarning[] {
  const used: [LimitWarning['limit'], number, number | undefined, (n: number) => string][] = [
    ['iterations', c.iterations, l.maxIterations, (n) => `${n} ${n === 1 ? 'iteration' : 'iterations'}`],
    ['runtime', c.elapsedMs, l.maxRuntimeMs, (n) => `${formatDuration(n)} of runtime`],
    ['cost', c.costUsd, l.maxCostUsd, (n) => `$${n.toFixed(2)}`],
    ['tokens', c.tokens, l.maxTokens, (n) => `${n} ${n === 1 ? 'token' : 'tokens'}`],
  ];
  const out: LimitWarning[] = [];
  for (const [limit, value, max, show] of used) {
    if (max === undefined || !(max > 0)) continue;
    const pct = (value / max) * 100;
    const reached = WARN_AT_PERCENT.filter((t) => pct >= t).at(-1);
    if (reached === undefined || reached <= (warned[limit] ?? 0) || pct >= 100) continue;
    out.push({
      limit,
      percent: reached,
      message: `${reached} % of the ${limit} limit used (${show(value)} of ${show(max)})`,
    });
  }
  return out;
}
