import type { RunContext } from '../../context/run-context.ts';
import { addUsageSample, resetParks } from '../../context/spend-and-limits.ts';
import { wouldComplete } from '../../decide/event-decisions.ts';
import type { Stop } from '../../decide/limits.ts';
import { summarize } from '../../gates/gate-commands.ts';
import { secondOpinion } from '../../gates/review-gate.ts';
import { gateFailure, markGreen, workspaceRollback } from '../../gates/rollback.ts';
import { carryRulesStart } from '../../gates/rules-start.ts';
import { measureProgress, rememberTree, workBlockers } from '../../gates/work-progress.ts';
import { metricStep } from '../../metric/metric-step.ts';
import { rollsBack } from '../../readiness/rollback-readiness.ts';
import { recordRepoWork } from '../../repos/repo-iteration.ts';
import { type ApprovalEntry, keepUncommitted } from '../../steering/approval-points.ts';
import { dropGuidance } from '../../steering/control-inbox.ts';
import { closeIssuesStep } from '../../workflow-steps/issue-tasks.ts';
import { milestonePrStep } from '../../workflow-steps/milestone-prs.ts';
import type { AgentPhase } from '../iteration-agent.ts';
import {
  applyDecision,
  countIteration,
  decide,
  eventInput,
  publishResultEvents,
} from '../iteration-decision.ts';
import { completedMessage } from '../iteration-stop.ts';
import { climbLadder } from '../model-rung.ts';
import { commitInput, type SettledWork, settleWork } from '../settle-work.ts';
import { firstStop } from './settlement-plan.ts';
import type { SettledTurn, SettlementPlan, TurnFacts } from './settlement-types.ts';

/** A finished turn, settled: what the record shows and whether the loop stops. */
export interface AppliedSettlement {
  turn: SettledTurn;
  completion: { accepted: boolean; reasons: string[] } | undefined;
  stopAfter: Stop | undefined;
}

/**
 * The verdict's own effects, for every turn (finished or not): refused work kept in the tree is
 * uncommitted; a turn the rules did not absorb leaves the next one judged from its start.
 */
export function applyVerdict(ctx: RunContext, { phase }: TurnFacts, { verdict }: SettlementPlan): void {
  if (verdict.keptUncommitted) keepUncommitted(ctx.state);
  if (verdict.carryRulesStart) carryRulesStart(ctx, phase.number, phase.rulesBefore);
}

/**
 * Applies the plan of a finished turn, in this order (each step may read what the ones before it
 * saved, and a crash before the record re-runs the whole turn), after applyVerdict (every turn):
 *  1. the counters: parks, the iteration and failure streak, usage samples, delivered guidance;
 *  2. the progress it made, and whether it asks to complete with the blockers known so far;
 *  3. accepted work only: the reviewer (gates.review), then commit → validate → push with their
 *     review points (settleWork), the milestone's pull request and the issues it closes;
 *  4. the event decision, made once with every blocker, then applied and its events published;
 *  5. the rollback of a failed validate hook, the metric (kept, or rolled back), the new green
 *     state, the tree Ralph's own commit left;
 *  6. the stop: the features' stops in the list's order, the first that stops wins;
 *  7. the model ladder, which reads the repeated signatures the stops counted.
 */
export async function applySettlement(
  ctx: RunContext,
  facts: TurnFacts,
  plan: SettlementPlan,
  approvals: ApprovalEntry[],
): Promise<AppliedSettlement> {
  const { state } = ctx;
  const { phase, checks, repos } = facts;
  const { forced, markerHit } = plan;
  bookTurn(ctx, phase, forced);
  const progress = await measureProgress(ctx, {
    headBefore: phase.headBefore,
    published: phase.collected.published.length,
  });
  const input = eventInput(
    ctx,
    phase,
    { ...checks, markerHit },
    [...workBlockers(ctx), ...(repos?.blockers ?? [])],
    forced,
  );
  const late: string[] = [];
  const completing = () => wouldComplete({ ...input, blockers: [...(input.blockers ?? []), ...late] });
  // A second opinion before a human is asked: another backend reviews the work.
  const review = plan.settleWork ? await secondOpinion(ctx, phase.number, completing()) : undefined;
  if (review && !review.approved && completing())
    late.push(
      review.stop
        ? `the review was cut short (${review.stop.reason})`
        : `the reviewer requested changes: ${review.findings.join('; ') || 'see the review'}`,
    );
  const work = plan.settleWork ? await settleAccepted(ctx, facts, plan, completing(), approvals) : NO_WORK;
  if (repos) recordRepoWork(repos.records, work);
  // forge.pull_requests: push the milestone's branch, open or update its pull request, mark it ready.
  const forge = plan.settleWork && !work.held ? await milestonePrStep(ctx, phase.number, checks.gates) : {};
  // Tasks imported from GitHub issues and done now: their issues get the commit and are closed.
  if (plan.settleWork && !work.held) await closeIssuesStep(ctx);
  if (work.blocked && completing()) late.push(work.blocked);
  const decision = decide(input, late);
  const completion = applyDecision(ctx, phase, decision);
  publishResultEvents(ctx, phase, checks, decision);
  if (work.validateGate) checks.gates.validate = summarize(work.validateGate);
  const { rollback, measured } = await settleTree(ctx, facts, plan, work);
  const turn: SettledTurn = { facts, plan, decision, work, review, forge, measured, progress, rollback };
  const stopAfter = firstStop(plan.stops, ctx, turn);
  // After the stop checks: they count the repeated signatures the ladder reads.
  climbLadder(ctx, phase.route.ladder, {
    failed: phase.verdict.kind === 'failure' || forced !== undefined,
    stuck: state.signature_repeats >= 2 || (state.tdd?.signature_repeats ?? 0) >= 2,
    gateFailed: checks.gates.tests?.passed === false || checks.gates.validate?.passed === false,
    completionRejected: completion?.accepted === false,
  });
  return { turn, completion, stopAfter };
}

/** The counters of a finished turn: parks, the iteration and failure streak, usage, delivered guidance. */
function bookTurn(ctx: RunContext, phase: AgentPhase, forced: string | undefined): void {
  const { state } = ctx;
  resetParks(state);
  countIteration(ctx, phase, forced);
  addUsageSample(state, {
    hat: phase.route.hatId,
    backend: phase.route.backend.name,
    costUsd: phase.run.meter.spentUsd() ?? 0,
    tokens: phase.tokens.total,
  });
  // Delivered: guidance the prompt carried is not repeated (what arrived meanwhile stays queued).
  if (phase.guidance.length > 0) dropGuidance(state, phase.guidance);
}

/**
 * What becomes of the tree: a failed validate hook (after the commit) rolls back too; the metric
 * keeps a result that beats the best so far, else rolls it back; gates that passed make the new
 * green state; Ralph's own commit moved HEAD, so the next iteration is measured from there.
 */
async function settleTree(
  ctx: RunContext,
  { phase }: TurnFacts,
  plan: SettlementPlan,
  work: SettledWork,
): Promise<Pick<SettledTurn, 'rollback' | 'measured'>> {
  const validateFailure = rollsBack(ctx.config) ? gateFailure(work.validateGate) : undefined;
  let rollback =
    plan.verdict.rollback ??
    (validateFailure ? workspaceRollback(ctx, phase.number, validateFailure, phase.headBefore) : undefined);
  const green = plan.greenCandidate && !work.held;
  const measured =
    !rollback && green
      ? await metricStep(ctx, { ...phase, published: phase.collected.published })
      : undefined;
  rollback ??= measured?.rollback;
  if (!rollback && green) markGreen(ctx);
  if (work.commit) await rememberTree(ctx);
  return { rollback, measured };
}

const NO_WORK: SettledWork = {
  commit: null,
  validateGate: undefined,
  pushError: undefined,
  blocked: undefined,
  held: false,
};

/** Git, the validate hook and the review points, in that order (settleWork), for accepted work. */
function settleAccepted(
  ctx: RunContext,
  { phase, checks, repos }: TurnFacts,
  { markerHit }: SettlementPlan,
  completes: boolean,
  approvals: ApprovalEntry[],
): Promise<SettledWork> {
  // Changes a human did not let in, or has not yet (a stop or Ctrl-C held the review point for
  // --resume), complete nothing.
  const toCommit = ctx.config.git.commit
    ? { ...commitInput(phase, checks), ...(repos ? { repo_tests: repos.testsLines } : {}) }
    : undefined;
  return settleWork(
    ctx,
    {
      iteration: phase.number,
      hat: phase.route.hatId,
      commit: toCommit,
      completes: completes ? completedMessage(ctx, markerHit) : null,
      // repos: each changed repository commits and pushes.
      repos: repos?.records.map((r) => r.name),
    },
    approvals,
  );
}
