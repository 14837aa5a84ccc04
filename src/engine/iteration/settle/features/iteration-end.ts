import { stopAfterIteration } from '../../iteration-stop.ts';
import type { SettlementFeature } from '../settlement-types.ts';

/**
 * The turn's own end, first reason first (stopAfterIteration): a limit, a refused commit, a failed
 * validate hook or push, TDD stuck, the iteration timeout, cancellation, completion, the events.
 */
export const iterationEnd: SettlementFeature = {
  name: 'iteration-end',
  stop: (ctx, { facts, plan, decision, work, rollback, progress }) =>
    stopAfterIteration(ctx, {
      phase: facts.phase,
      decision,
      markerHit: plan.markerHit,
      tddStep: facts.checks.tddStep,
      ...work,
      rollback,
      progress,
    }),
};
