import type { KilledProcess } from '../../process/marked-processes.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import type { PendingRollback } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import type { Stop } from '../decide/limits.ts';
import type { IterationProgress } from '../gates/work-progress.ts';
import type { ReposOutcome } from '../repos/repo-iteration.ts';
import type { ApprovalEntry } from '../steering/approval-points.ts';
import type { TddStepResult } from '../workflow-steps/tdd-loop.ts';
import type { AgentPhase } from './iteration-agent.ts';
import { applySettlement, applyVerdict } from './settle/apply-settlement.ts';
import { planSettlement } from './settle/settlement-plan.ts';
import { gatherTurnFacts } from './settle/turn-facts.ts';
import { unfinishedOutcome } from './unfinished-iteration.ts';

/** How an iteration ended once the agent was done: what the record shows and whether the loop stops. */
export interface IterationOutcome {
  stopAfter: Stop | undefined;
  /** Set when the iteration asked to complete. */
  completion: { accepted: boolean; reasons: string[] } | undefined;
  gates: IterationRecord['gates'];
  /** gates.tests.affected ran nothing, and why. */
  testsSkipped?: string | undefined;
  commit: string | null;
  tddStep: TddStepResult | undefined;
  /** Review points a human settled (`gates.approval`). */
  approvals: ApprovalEntry[];
  /** What the iteration moved; undefined when it did not finish (aborted, parked). */
  progress?: IterationProgress | undefined;
  /** Program-running keys of the repository's git config it changed (put back): it was not accepted. */
  gitConfig?: string[] | undefined;
  /** Protected files it changed (gates.protect): it was not accepted. */
  tampered?: string[] | undefined;
  review?: IterationRecord['review'] | undefined;
  /** Processes started after the agent (the reviewer's) that were left running and killed. */
  killed: KilledProcess[];
  /** forge.pull_requests: the milestone's pull request after this iteration. */
  pullRequest?: IterationRecord['pull_request'] | undefined;
  /** gates.on_failure: rollback or rules — its changes are set aside once the record is saved. */
  rollback?: PendingRollback | undefined;
  /** A file inside rules.deny or outside rules.allow: verdict `rule_violation`. */
  ruleViolation?: boolean | undefined;
  /** repos: what each changed repository's gates, commit and push did. */
  repos?: ReposOutcome | undefined;
  /** Files the agent hid behind skip-worktree or assume-unchanged: the bits Ralph cleared. */
  unhidden?: string[] | undefined;
}

/**
 * Everything after the agent: the facts of its turn (gatherTurnFacts: git's files, the protected
 * files, the gates, rules, nested repositories, repos), one plan made of them (planSettlement,
 * pure), then that plan applied in a fixed order (applySettlement).
 */
export async function settleIteration(ctx: RunContext, phase: AgentPhase): Promise<IterationOutcome> {
  const approvals: ApprovalEntry[] = [];
  const facts = await gatherTurnFacts(ctx, phase, approvals);
  const plan = planSettlement(facts);
  applyVerdict(ctx, facts, plan);
  // Aborted or parked: not settled now; the same iteration runs again.
  const unfinished = unfinishedOutcome(ctx, phase, facts.checks);
  if (unfinished) return { ...unfinished, unhidden: facts.unhidden };
  const { turn, completion, stopAfter } = await applySettlement(ctx, facts, plan, approvals);
  const { checks, ruled, repos } = facts;
  const { review, forge } = turn;
  return {
    stopAfter,
    completion,
    gates: checks.gates,
    testsSkipped: checks.testsSkipped,
    tddStep: checks.tddStep,
    commit: turn.work.commit,
    approvals,
    progress: turn.progress,
    gitConfig: facts.gitConfig,
    tampered: plan.verdict.tampered,
    review: review
      ? {
          approved: review.approved,
          findings: review.findings,
          round: ctx.state.review?.rounds.length ?? 0,
          cost_usd: review.costUsd,
          tokens: review.tokens,
        }
      : undefined,
    killed: review?.killed ?? [],
    pullRequest: forge.pr
      ? { number: forge.pr.number, url: forge.pr.url, status: forge.pr.status, milestone: forge.pr.milestone }
      : undefined,
    rollback: turn.rollback,
    ruleViolation: ruled?.violation === true || repos?.ruleViolation === true,
    repos,
    unhidden: facts.unhidden,
  };
}
