import { abandonedWaitStop } from '../../../steering/human-wait.ts';
import type { SettlementFeature } from '../settlement-types.ts';

/** gates.approval: a stop or Ctrl-C held a review point: never a completion; the run resumes at the point. */
export const approvals: SettlementFeature = {
  name: 'approvals',
  stop: (ctx, { work }) => (work.held ? abandonedWaitStop(ctx) : undefined),
};
