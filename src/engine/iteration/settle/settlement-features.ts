import { approvals } from './features/approvals.ts';
import { damagedFiles } from './features/damaged-files.ts';
import { gateRollback } from './features/gate-rollback.ts';
import { gitConfig } from './features/git-config.ts';
import { iterationEnd } from './features/iteration-end.ts';
import { metric } from './features/metric-stop.ts';
import { nestedRepos } from './features/nested-repos.ts';
import { progress } from './features/progress.ts';
import { controlFiles, protect } from './features/protect.ts';
import { pullRequests } from './features/pull-request-stop.ts';
import { repos } from './features/repos-refusal.ts';
import { review, reviewRounds } from './features/review.ts';
import { rules } from './features/rules.ts';
import { tdd } from './features/tdd-failure.ts';
import type { SettlementFeature } from './settlement-types.ts';

/**
 * Every feature's part in settling a turn, in precedence order: the first stop listed wins, the
 * first set-aside reason names the rollback, and a check in gatherTurnFacts runs only while no
 * feature before it refuses the turn (refusedBefore). Adding a feature: a file in features/ and a
 * line here.
 */
export const SETTLEMENT_FEATURES: readonly SettlementFeature[] = [
  review,
  protect,
  gitConfig,
  damagedFiles,
  rules,
  controlFiles,
  nestedRepos,
  gateRollback,
  repos,
  tdd,
  approvals,
  pullRequests,
  metric,
  iterationEnd,
  reviewRounds,
  progress,
];
