import type { SettlementFeature } from '../settlement-types.ts';

/** repos: a repository's failing gate (with rollback) or broken rule sets the turn aside in every one it changed. */
export const repos: SettlementFeature = {
  name: 'repos',
  refuse: ({ repos: outcome }) => (outcome?.rollback ? { reposRollback: true } : undefined),
  feedback: ({ repos: outcome }) => outcome?.rolledBack,
};
