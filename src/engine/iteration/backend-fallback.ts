import type { BackendName, RalphConfig } from '../../config/schema.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';

/** The cli.fallback backend a state says is in force at `now` (pure), or undefined. */
export function fallbackInForce(
  state: Pick<LoopState, 'fallback'>,
  config: RalphConfig,
  now: number,
): BackendName | undefined {
  const fb = state.fallback;
  return fb && now < fb.until ? config.cli.fallback[fb.index] : undefined;
}

/**
 * cli.fallback: the backend to run on instead of the primary, or undefined. A fallback whose
 * primary's usage limit has reset ends here: the loop goes back to the primary.
 */
export function activeFallback(ctx: RunContext): BackendName | undefined {
  const fb = ctx.state.fallback;
  if (!fb) return undefined;
  const now = ctx.now();
  if (now < fb.until) return fallbackInForce(ctx.state, ctx.config, now);
  ctx.state.fallback = null;
  ctx.emit({
    type: 'notice',
    level: 'info',
    message: `the usage limit of ${ctx.options.backend.name} has reset: back on it (cli.fallback)`,
  });
  return undefined;
}

/**
 * A usage limit that resets later than `cli.fallback_after_seconds`: the same iteration runs again
 * on the next backend of `cli.fallback` instead of parking. False when there is none left (or the
 * limit resets soon enough to wait for): the loop parks as before.
 */
export function switchToFallback(
  ctx: RunContext,
  v: { until: number; message: string; transient: boolean },
  failedBackend: string,
): boolean {
  const list = ctx.config.cli.fallback;
  if (v.transient || list.length === 0) return false;
  if (v.until - ctx.now() <= ctx.config.cli.fallback_after_seconds * 1000) return false;
  const next = ctx.state.fallback ? ctx.state.fallback.index + 1 : 0;
  if (next >= list.length) return false;
  // Back to the primary only once its own limit has reset.
  const until = Math.max(v.until, ctx.state.fallback?.until ?? 0);
  ctx.state.fallback = { index: next, until };
  ctx.emit({
    type: 'notice',
    level: 'warn',
    message: `${failedBackend} hit a usage limit (${v.message}) until ${new Date(v.until).toISOString()}; iteration ${ctx.state.current?.number ?? ctx.state.iterations + 1} runs again on ${list[next]} (cli.fallback)`,
  });
  return true;
}
