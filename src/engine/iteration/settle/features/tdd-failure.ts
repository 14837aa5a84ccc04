import type { SettlementFeature } from '../settlement-types.ts';

/** `tdd`: a turn that broke the TDD cycle counts as failed (its work stands); being stuck stops in iteration-end. */
export const tdd: SettlementFeature = {
  name: 'tdd',
  feedback: ({ checks }) => checks.tddStep?.forceFailure,
};
