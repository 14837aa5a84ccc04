import type { SettlementFeature } from '../settlement-types.ts';

/** forge.pull_requests: the milestone's pull request, waiting for its merge or failing, stops the loop. */
export const pullRequests: SettlementFeature = {
  name: 'pull-requests',
  stop: (_, { forge }) => forge.stop,
};
