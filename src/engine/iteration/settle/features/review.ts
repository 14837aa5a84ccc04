import { reviewStop } from '../../../gates/review-gate.ts';
import type { SettlementFeature } from '../settlement-types.ts';

/** gates.review: a limit or Ctrl-C that cut the reviewer short stops the loop before anything else. */
export const review: SettlementFeature = {
  name: 'review',
  stop: (_, turn) => turn.review?.stop,
};

/** gates.review: max_rounds reviews in a row without approval stop the loop (review_unresolved). */
export const reviewRounds: SettlementFeature = {
  name: 'review-rounds',
  stop: (ctx) => reviewStop(ctx),
};
