import { noProgressStop } from '../../../gates/work-progress.ts';
import type { SettlementFeature } from '../settlement-types.ts';

/** event_loop.max_idle_iterations: finished turns in a row that moved nothing stop the loop (no_progress). */
export const progress: SettlementFeature = {
  name: 'progress',
  stop: (ctx, { progress: p, decision }) => noProgressStop(ctx, p, decision.idle),
};
