import type { SettlementFeature } from '../settlement-types.ts';

/** `rules`: a file inside deny or outside allow, or a refused approval, sets the turn aside. */
export const rules: SettlementFeature = {
  name: 'rules',
  refuse: ({ ruled }) => (ruled ? { setAside: ruled.why, carryRulesStart: true } : undefined),
  feedback: ({ ruled }) => ruled?.why,
};
