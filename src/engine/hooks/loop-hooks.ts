import type { HookPhaseEvent } from '../../config/schema/hooks.ts';
import { selectHat } from '../../routing/select-hat.ts';
import type { RunContext } from '../context/run-context.ts';
import type { Stop } from '../decide/limits.ts';
import { publishesPlan, terminationPhases } from './hook-plan.ts';
import { runHookPhase } from './run-hooks.ts';

// Where each phase-event fires in Ralph's loop (docs/operations/hooks.md#where-each-phase-event-fires).

/** `pre.loop.start` before the run's start steps (protected files, progress marks), `post.loop.start` after. */
export function loopStartHooks(
  ctx: RunContext,
  phaseEvent: 'pre.loop.start' | 'post.loop.start',
): Promise<Stop | undefined> {
  return runHookPhase(ctx, phaseEvent, { iteration: ctx.state.iterations, activeHat: nextHat(ctx) });
}

/** `pre.iteration.start`: after the waits between iterations, before the iteration is routed and started. */
export function iterationHooks(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  const iteration = state.current?.number ?? state.iterations + 1;
  return runHookPhase(ctx, 'pre.iteration.start', { iteration, activeHat: nextHat(ctx) });
}

/** `post.iteration.start`: the iteration's hat is picked and its prompt built, before its agent starts. */
export function iterationStartedHooks(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
): Promise<Stop | undefined> {
  return runHookPhase(ctx, 'post.iteration.start', { iteration, activeHat: hat, selectedHat: hat });
}

/**
 * The `plan.created` pair, when the iteration that just settled published a `plan.*` topic: both
 * fire before the next iteration routes it (Ralph routes an iteration's events at the next start).
 */
export async function planHooks(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  const topics = state.pending_events.filter((e) => e.iteration === state.iterations).map((e) => e.topic);
  if (!publishesPlan(topics)) return undefined;
  const point = { iteration: state.iterations, activeHat: nextHat(ctx), selectedHat: nextHat(ctx) };
  return (
    (await runHookPhase(ctx, 'pre.plan.created', point)) ??
    (await runHookPhase(ctx, 'post.plan.created', point))
  );
}

/** The pair a run's end fires, by how it ended: `pre.*` may still change the end, `post.*` only reports. */
export function endPhases(end: Stop): [HookPhaseEvent, HookPhaseEvent] {
  return terminationPhases(end.reason);
}

/** The run's end as its `pre.loop.complete` / `pre.loop.error` hooks leave it (a block or a stop replaces it). */
export async function preEndHooks(ctx: RunContext, end: Stop): Promise<Stop> {
  const [pre] = endPhases(end);
  const point = { iteration: ctx.state.iterations, activeHat: nextHat(ctx), terminationReason: end.reason };
  return (await runHookPhase(ctx, pre, point)) ?? end;
}

/** `post.loop.complete` / `post.loop.error`, once the end is saved: a failure is reported, nothing more. */
export async function postEndHooks(ctx: RunContext, end: Stop): Promise<void> {
  const [, post] = endPhases(end);
  const point = { iteration: ctx.state.iterations, activeHat: nextHat(ctx), terminationReason: end.reason };
  await runHookPhase(ctx, post, point, { reportOnly: true });
}

/** The hat the pending events route to next (null in solo mode). */
function nextHat(ctx: RunContext): string | null {
  if (!ctx.hatsMode) return null;
  return selectHat(ctx.config.hats, ctx.state.pending_events, { activations: ctx.state.hat_activations })
    .hatId;
}
