import type { PendingRollback } from '../../../state/loop-state.ts';
import type { RunContext } from '../../context/run-context.ts';
import type { Stop } from '../../decide/limits.ts';
import { planRollback } from '../../gates/rollback.ts';
import { SETTLEMENT_FEATURES } from './settlement-features.ts';
import type {
  Refusal,
  SettledTurn,
  SettlementFeature,
  SettlementPlan,
  TurnFacts,
  TurnVerdict,
} from './settlement-types.ts';

/** Every refusal of the features, in the list's order (pure). */
function refusals(facts: TurnFacts, features: readonly SettlementFeature[]): Refusal[] {
  return features.flatMap((f) => f.refuse?.(facts) ?? []);
}

/**
 * Whether a feature listed before `name` refuses the turn (pure): a later check runs only while none
 * does, so a refused turn asks no human and runs no gate more.
 */
export function refusedBefore(
  facts: TurnFacts,
  name: string,
  features: readonly SettlementFeature[] = SETTLEMENT_FEATURES,
): boolean {
  const at = features.findIndex((f) => f.name === name);
  if (at < 0) throw new Error(`no settlement feature named ${name}`);
  return refusals(facts, features.slice(0, at)).length > 0;
}

/**
 * The turn's verdict (pure). A failed agent is not accepted; a refusal that keeps the work in the
 * tree wins over one that sets it aside; the first set-aside reason names the rollback, which goes
 * to `rollbackTo` (with nowhere to go, the work stays in the tree, uncommitted).
 */
export function planVerdict(
  facts: TurnFacts,
  features: readonly SettlementFeature[] = SETTLEMENT_FEATURES,
): TurnVerdict {
  const refused = refusals(facts, features);
  const kept = refused.some((r) => r.setAside === undefined && !r.reposRollback);
  const why = refused.find((r) => r.setAside !== undefined)?.setAside;
  const rollback: PendingRollback | undefined =
    !kept && why !== undefined && facts.rollbackTo
      ? planRollback({ iteration: facts.phase.number, ref: facts.rescueRef }, [
          { repo: null, to: facts.rollbackTo, why },
        ])
      : undefined;
  const setAside = rollback !== undefined || refused.some((r) => r.reposRollback);
  return {
    accepted: facts.agentOk && refused.length === 0,
    tampered: refused.flatMap((r) => r.tampered ?? []),
    rollback,
    keptUncommitted: refused.length > 0 && !setAside,
    carryRulesStart: !facts.agentOk || refused.some((r) => r.carryRulesStart),
  };
}

/** The settlement of a turn (pure): its verdict, the failure it counts, what follows, the stops in order. */
export function planSettlement(
  facts: TurnFacts,
  features: readonly SettlementFeature[] = SETTLEMENT_FEATURES,
): SettlementPlan {
  const verdict = planVerdict(facts, features);
  const { checks } = facts;
  const forced = features.reduce<string | undefined>(
    (found, f) => found ?? f.feedback?.(facts, verdict),
    undefined,
  );
  return {
    verdict,
    forced,
    markerHit: verdict.accepted && checks.markerHit,
    settleWork: verdict.accepted,
    greenCandidate: verdict.accepted && checks.testsGate?.passed !== false,
    stops: features.filter((f) => f.stop !== undefined),
  };
}

/** The stop of a settled turn: the first of the plan's stops that stops, in the list's order (later ones are not asked). */
export function firstStop(
  stops: readonly SettlementFeature[],
  ctx: RunContext,
  turn: SettledTurn,
): Stop | undefined {
  return stops.reduce<Stop | undefined>((found, f) => found ?? f.stop?.(ctx, turn), undefined);
}
