import type { MilestonePr, PendingRollback } from '../../../state/loop-state.ts';
import type { RunContext } from '../../context/run-context.ts';
import type { EventDecision } from '../../decide/event-decisions.ts';
import type { Stop } from '../../decide/limits.ts';
import type { ReviewResult } from '../../gates/review-gate.ts';
import type { RulesRefusal } from '../../gates/rules-gate.ts';
import type { IterationProgress } from '../../gates/work-progress.ts';
import type { MetricStepResult } from '../../metric/metric-step.ts';
import type { ReposOutcome } from '../../repos/repo-iteration.ts';
import type { AgentPhase } from '../iteration-agent.ts';
import type { AfterAgentChecks } from '../iteration-decision.ts';
import type { SettledWork } from '../settle-work.ts';

/** What the checks after the agent found (gatherTurnFacts); a check a refusal made moot is undefined. */
export interface TurnFacts {
  phase: AgentPhase;
  /** The agent ended its turn (success or complete): its work can be judged. */
  agentOk: boolean;
  /** Git control files it changed (each already put back). */
  control: string[];
  /** Program-running keys of the git config it changed (put back). */
  gitConfig: string[];
  /** Files it hid behind index flags: the bits Ralph cleared. */
  unhidden: string[];
  /** Protected files it changed (gates.protect). */
  touched: string[];
  /** The tests gate, TDD and the completion marker. */
  checks: AfterAgentChecks;
  ruled: RulesRefusal | undefined;
  /** Why a nested repository it created is not committed. */
  nested: string | undefined;
  /** repos: each changed repository's gates and rules. */
  repos: ReposOutcome | undefined;
  /** gates.on_failure: rollback. */
  rollsBack: boolean;
  /** Where a set-aside turn goes back to (the last green commit, else its start); null: nowhere. */
  rollbackTo: string | null;
  /** The rescue ref a set-aside turn's changes are kept in. */
  rescueRef: string;
}

/** Why a feature refuses the turn's work: it is never committed, validated, pushed or completed. */
export interface Refusal {
  /** Why the work is set aside (into the rescue ref); undefined: it stays in the tree, uncommitted. */
  setAside?: string | undefined;
  /** The repositories of `repos` set the work aside themselves (finishRollback). */
  reposRollback?: boolean | undefined;
  /** Files the record lists as tampered with (gates.protect, git's control files). */
  tampered?: string[] | undefined;
  /** The rules judge the next iteration from this one's start (nothing of it is absorbed). */
  carryRulesStart?: boolean | undefined;
}

/** The turn's verdict, built from every feature's refusal (planVerdict). */
export interface TurnVerdict {
  /** No feature refused: the work may be committed, validated, pushed, reviewed and completed. */
  accepted: boolean;
  tampered: string[];
  /** The set-aside refusal's rollback, done once the record is saved. */
  rollback: PendingRollback | undefined;
  /** Refused and not set aside: the changes stay in the work tree, uncommitted. */
  keptUncommitted: boolean;
  carryRulesStart: boolean;
}

/** What settling a turn decided and did: what the features' stops read. */
export interface SettledTurn {
  facts: TurnFacts;
  plan: SettlementPlan;
  decision: EventDecision;
  work: SettledWork;
  review: ReviewResult | undefined;
  forge: { stop?: Stop; pr?: MilestonePr };
  measured: MetricStepResult | undefined;
  progress: IterationProgress;
  /** The rollback once validate and the metric had their say. */
  rollback: PendingRollback | undefined;
}

/**
 * One feature's part in settling a turn; settlement-features.ts lists them all, in the order their
 * stops take precedence. Each part is optional: what it refuses and the failure it makes the turn
 * count (pure, from the facts), and why the loop stops after the turn (once the plan is applied).
 * An effect that must run at a fixed point (commit, review, pull request) is called there by
 * applySettlement.
 */
export interface SettlementFeature {
  name: string;
  refuse?(facts: TurnFacts): Refusal | undefined;
  /** The failure the turn counts (its feedback), or undefined. */
  feedback?(facts: TurnFacts, verdict: TurnVerdict): string | undefined;
  stop?(ctx: RunContext, turn: SettledTurn): Stop | undefined;
}

/** The settlement of a turn (planSettlement, pure): applySettlement carries it out. */
export interface SettlementPlan {
  verdict: TurnVerdict;
  /** Why the turn counts as failed though the agent succeeded (refused, or TDD); undefined: it does not. */
  forced: string | undefined;
  /** The completion marker or checklist holds, and the work is accepted. */
  markerHit: boolean;
  /** Commit, validate, push, the review points, the reviewer, pull request and issues: accepted work only. */
  settleWork: boolean;
  /** The metric and the new green state: accepted work whose tests did not fail (and nothing rolled back or held). */
  greenCandidate: boolean;
  /** The features that may stop the loop, first one first. */
  stops: SettlementFeature[];
}
