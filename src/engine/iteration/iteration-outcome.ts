import type { KilledProcess } from '../../process/marked-processes.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import type { PendingRollback } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { addUsageSample, resetParks } from '../context/spend-and-limits.ts';
import type { Stop } from '../decide/limits.ts';
import { type ApprovalEntry, keepUncommitted } from '../human/approval-points.ts';
import { dropGuidance } from '../human/control-inbox.ts';
import { abandonedWaitStop } from '../human/human-wait.ts';
import { metricStep } from '../metric/metric-step.ts';
import { rollsBack } from '../readiness/rollback-readiness.ts';
import { type ReposOutcome, recordRepoWork, settleRepos } from '../repos/repo-iteration.ts';
import { summarize } from '../verify/gate-commands.ts';
import { checkGitConfig, gitConfigFeedback, gitConfigStop } from '../verify/git-config-gate.ts';
import { clearHiddenIndexFlags, controlFilesTampered } from '../verify/git-view.ts';
import { damagedFilesFeedback } from '../verify/own-files.ts';
import {
  checkProtected,
  tamperedFeedback,
  tamperedStop,
  withProtectedContent,
} from '../verify/protect-gate.ts';
import { reviewStop, secondOpinion } from '../verify/review-gate.ts';
import {
  gateFailure,
  markGreen,
  nestedRepoRefusal,
  planRollback,
  rollbackFeedback,
} from '../verify/rollback.ts';
import { checkRules } from '../verify/rules-gate.ts';
import { carryRulesStart, rulesWalkChanges } from '../verify/rules-start.ts';
import {
  type IterationProgress,
  measureProgress,
  noProgressStop,
  rememberTree,
  workBlockers,
} from '../verify/work-progress.ts';
import { closeIssuesStep } from '../workflows/issue-tasks.ts';
import { milestonePrStep } from '../workflows/milestone-prs.ts';
import type { TddStepResult } from '../workflows/tdd-loop.ts';
import type { AgentPhase } from './iteration-agent.ts';
import {
  applyDecision,
  checkAfterAgent,
  countIteration,
  decide,
  publishResultEvents,
} from './iteration-decision.ts';
import { completedMessage, stopAfterIteration } from './iteration-stop.ts';
import { climbLadder } from './model-rung.ts';
import { commitInput, type SettledWork, settleWork } from './settle-work.ts';
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

/** Everything after the agent: gates, TDD, completion, events, git, and the stop decision. */
export async function settleIteration(ctx: RunContext, phase: AgentPhase): Promise<IterationOutcome> {
  const { state } = ctx;
  const approvals: ApprovalEntry[] = [];
  // Git's control files first (commondir, info/attributes, alternates…): changed, Ralph's next git
  // call would read another repository or run the agent's filter. Each is put back already.
  const control = controlFilesTampered(ctx, phase.number);
  // The repository's git config before anything: Ralph's next git call (the status that reads the
  // changes) would run a filter the agent planted there. A refused change is already put back.
  const gitConfig = await checkGitConfig(ctx, phase.number);
  const agentOk = phase.verdict.kind === 'success' || phase.verdict.kind === 'complete';
  // Before Ralph asks git anything: what the agent hid behind index flags shows again.
  const unhidden = await clearHiddenIndexFlags(ctx, `iteration ${phase.number}`);
  // What the agent changed under the rules' directories, looked at before any gate writes there.
  const walked = agentOk ? rulesWalkChanges(ctx, phase.rulesBefore) : undefined;
  // Protected files first: the gates then run from the protected content, never the agent's.
  const touched = agentOk ? await checkProtected(ctx, phase.number, approvals) : [];
  const checks = await withProtectedContent(ctx, touched, () => checkAfterAgent(ctx, phase));
  // And after the gates (the agent may have changed what they run), before Ralph commits.
  unhidden.push(...(await clearHiddenIndexFlags(ctx, `iteration ${phase.number}'s gates`)));
  // Not accepted: nothing is committed, validated or pushed, and it cannot complete.
  const refuse = () => {
    checks.agentOk = false;
    checks.markerHit = false;
    keepUncommitted(state);
  };
  if (touched.length > 0 || gitConfig.length > 0 || phase.damaged.length > 0) refuse();
  // rules, then gates.on_failure: rollback — the iteration is set aside instead of committed.
  // With repos, settleRepos checks the rules over every repository's changes.
  const ruled =
    checks.agentOk && !ctx.config.repos
      ? await checkRules(ctx, phase.number, phase, approvals, walked)
      : undefined;
  // A changed control file (already put back) is refused like a protected file; the rules, judging
  // from disk, have their say first (a denied file hidden by info/exclude is their violation).
  const tampered = [...touched, ...(agentOk && !ruled ? control : [])];
  if (tampered.length > touched.length) refuse();
  // Not judged, or refused: the next iteration is judged from this one's start (nothing is absorbed).
  if (!checks.agentOk || ruled) carryRulesStart(ctx, phase.number, phase.rulesBefore);
  const testsFailure = checks.agentOk && rollsBack(ctx.config) ? gateFailure(checks.testsGate) : undefined;
  // A nested repository the agent created is never committed: set aside like a rule violation.
  const nested = checks.agentOk && !ruled && !ctx.config.repos ? await nestedRepoRefusal(ctx) : undefined;
  const refusal = ruled?.why ?? nested ?? testsFailure;
  let rollback = refusal ? planRollback(ctx, phase.number, refusal, phase.headBefore) : undefined;
  if (nested && !rollback) refuse();
  if (rollback) {
    checks.agentOk = false;
    checks.markerHit = false;
  }
  // repos: each changed repository's gates, then its commit and push (or the rollback of them all).
  const repos =
    checks.agentOk && ctx.config.repos
      ? await settleRepos(
          ctx,
          {
            iteration: phase.number,
            hat: phase.route.hatId,
            backend: phase.route.backend.name,
            summary: phase.finalText,
            completionRequested: checks.completionRequested === true,
          },
          approvals,
        )
      : undefined;
  if (repos?.rollback) {
    // Set aside once the record is saved: nothing of it is validated, reviewed or completed meanwhile.
    checks.agentOk = false;
    checks.markerHit = false;
  }
  const forced =
    repos?.rolledBack ??
    checks.tddStep?.forceFailure ??
    (gitConfig.length > 0 ? gitConfigFeedback(gitConfig) : undefined) ??
    (tampered.length > 0 ? tamperedFeedback(tampered) : undefined) ??
    (phase.damaged.length > 0 ? damagedFilesFeedback(phase.damaged) : undefined) ??
    (rollback ? rollbackFeedback(rollback) : undefined);
  // Aborted or parked: not settled now; the same iteration runs again.
  const unfinished = unfinishedOutcome(ctx, phase, checks);
  if (unfinished) return { ...unfinished, unhidden };
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
  const progress = await measureProgress(ctx, {
    headBefore: phase.headBefore,
    published: phase.collected.published.length,
  });
  const blockers = [...workBlockers(ctx), ...(repos?.blockers ?? [])];
  let decision = decide(ctx, phase, checks, blockers, forced);
  // A second opinion before a human is asked: another backend reviews the work.
  const review = checks.agentOk ? await secondOpinion(ctx, phase.number, decision.complete) : undefined;
  if (review && !review.approved && decision.complete) {
    blockers.push(
      review.stop
        ? `the review was cut short (${review.stop.reason})`
        : `the reviewer requested changes: ${review.findings.join('; ') || 'see the review'}`,
    );
    decision = decide(ctx, phase, checks, blockers, forced);
  }
  // Git, the validate hook and the review points, in that order. Changes a human did not let in,
  // or has not yet (a stop or Ctrl-C held the review point for --resume), complete nothing.
  const completes = decision.complete ? completedMessage(ctx, checks.markerHit) : null;
  const toCommit = ctx.config.git.commit
    ? { ...commitInput(phase, checks), ...(repos ? { repo_tests: repos.testsLines } : {}) }
    : undefined;
  // repos: each changed repository commits and pushes (settleWork with `repos`).
  const changedRepos = repos?.records.map((r) => r.name);
  const work: SettledWork = checks.agentOk
    ? await settleWork(
        ctx,
        { iteration: phase.number, hat: phase.route.hatId, commit: toCommit, completes, repos: changedRepos },
        approvals,
      )
    : { commit: null, validateGate: undefined, pushError: undefined, blocked: undefined, held: false };
  if (repos) recordRepoWork(repos.records, work);
  // forge.pull_requests: push the milestone's branch, open or update its pull request, mark it ready.
  const forge = checks.agentOk && !work.held ? await milestonePrStep(ctx, phase.number, checks.gates) : {};
  // Tasks imported from GitHub issues and done now: their issues get the commit and are closed.
  if (checks.agentOk && !work.held) await closeIssuesStep(ctx);
  if (work.blocked && decision.complete) {
    blockers.push(work.blocked);
    decision = decide(ctx, phase, checks, blockers, forced);
  }
  const completion = applyDecision(ctx, phase, decision);
  publishResultEvents(ctx, phase, checks, decision);
  if (work.validateGate) checks.gates.validate = summarize(work.validateGate);
  // A failed validate hook (after the commit) rolls back too; gates that passed make the new green state.
  const validateFailure = rollsBack(ctx.config) ? gateFailure(work.validateGate) : undefined;
  rollback ??= validateFailure
    ? planRollback(ctx, phase.number, validateFailure, phase.headBefore)
    : undefined;
  // metric: a result that does not beat the best so far is rolled back like a failed gate.
  const measured =
    !rollback && checks.agentOk && !work.held && checks.testsGate?.passed !== false
      ? await metricStep(ctx, { ...phase, published: phase.collected.published })
      : undefined;
  rollback ??= measured?.rollback;
  if (!rollback && checks.agentOk && !work.held && checks.testsGate?.passed !== false) markGreen(ctx);
  // Ralph's own commit moved HEAD: the next iteration is measured from here.
  if (work.commit) await rememberTree(ctx);
  const stopAfter =
    review?.stop ??
    tamperedStop(ctx, tampered) ??
    gitConfigStop(ctx, gitConfig) ??
    // Held: never a completion; the run ends interrupted (or cancelled) and resumes at the point.
    (work.held ? abandonedWaitStop(ctx) : undefined) ??
    forge.stop ??
    measured?.stop ??
    stopAfterIteration(ctx, {
      phase,
      decision,
      markerHit: checks.markerHit,
      tddStep: checks.tddStep,
      ...work,
      rollback,
    }) ??
    reviewStop(ctx) ??
    noProgressStop(ctx, progress, decision.idle);
  // After the stop checks: they count the repeated signatures the ladder reads.
  climbLadder(ctx, phase.route.ladder, {
    failed: phase.verdict.kind === 'failure' || forced !== undefined,
    stuck: state.signature_repeats >= 2 || (state.tdd?.signature_repeats ?? 0) >= 2,
    gateFailed: checks.gates.tests?.passed === false || checks.gates.validate?.passed === false,
    completionRejected: completion?.accepted === false,
  });
  return {
    stopAfter,
    completion,
    gates: checks.gates,
    testsSkipped: checks.testsSkipped,
    tddStep: checks.tddStep,
    commit: work.commit,
    approvals,
    progress,
    gitConfig,
    tampered,
    review: review
      ? {
          approved: review.approved,
          findings: review.findings,
          round: state.review?.rounds.length ?? 0,
          cost_usd: review.costUsd,
          tokens: review.tokens,
        }
      : undefined,
    killed: review?.killed ?? [],
    pullRequest: forge.pr
      ? { number: forge.pr.number, url: forge.pr.url, status: forge.pr.status, milestone: forge.pr.milestone }
      : undefined,
    rollback,
    ruleViolation: ruled?.violation === true || repos?.ruleViolation === true,
    repos,
    unhidden,
  };
}
