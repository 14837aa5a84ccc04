import type { SettlementFeature } from '../settlement-types.ts';

/** metric: the target reached, or patience spent, stops the loop (metricStep, in applySettlement). */
export const metric: SettlementFeature = {
  name: 'metric',
  stop: (_, { measured }) => measured?.stop,
};
