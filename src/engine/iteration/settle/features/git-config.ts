import { gitConfigFeedback, gitConfigStop } from '../../../gates/git-config-gate.ts';
import type { SettlementFeature } from '../settlement-types.ts';

/** The repository's git config: a program-running key the turn changed (put back) refuses it; in a row, it stops. */
export const gitConfig: SettlementFeature = {
  name: 'git-config',
  refuse: ({ gitConfig: keys }) => (keys.length > 0 ? { carryRulesStart: true } : undefined),
  feedback: ({ gitConfig: keys }) => (keys.length > 0 ? gitConfigFeedback(keys) : undefined),
  stop: (ctx, { facts }) => gitConfigStop(ctx, facts.gitConfig),
};
