import { gateFailure, rollbackFeedback } from '../../../gates/rollback.ts';
import type { SettlementFeature, TurnFacts } from '../settlement-types.ts';

/**
 * gates.on_failure: rollback — failing tests set the turn aside (a failed validate hook, after the
 * commit, too: applySettlement); the next prompt says what was rolled back and why.
 */
export const gateRollback: SettlementFeature = {
  name: 'gate-rollback',
  refuse: (facts) => {
    const why = testsFailure(facts);
    return why ? { setAside: why } : undefined;
  },
  feedback: (facts, verdict) => (verdict.rollback ? rollbackFeedback(verdict.rollback) : testsFailure(facts)),
};

function testsFailure({ rollsBack, checks }: TurnFacts): string | undefined {
  return rollsBack ? gateFailure(checks.testsGate) : undefined;
}
