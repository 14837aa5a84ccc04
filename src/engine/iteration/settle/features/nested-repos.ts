import type { SettlementFeature } from '../settlement-types.ts';

/**
 * A nested repository the agent created is never committed: the turn is set aside (moved aside
 * whole), or kept uncommitted with no commit to go back to; either way it counts as failed.
 */
export const nestedRepos: SettlementFeature = {
  name: 'nested-repos',
  refuse: ({ nested }) => (nested ? { setAside: nested } : undefined),
  feedback: ({ nested }) => nested,
};
