import { type GateResult, validateCommand } from '../../gates/run-gate.ts';
import type { IterationRecord } from '../../observe/events.ts';
import type { RunContext } from '../context/run-context.ts';
import { addSample } from '../decide/budget-projection.ts';
import { markerReached, summarize } from '../decide/completion-marker.ts';
import { decideEvents, type EventDecision } from '../decide/event-decisions.ts';
import type { Stop } from '../decide/limits.ts';
import { type ApprovalEntry, approveCommit, approveCompletion, approvePush } from '../steps/approval-step.ts';
import { readChecklist } from '../steps/checklist-step.ts';
import { commitStep, pushStep } from '../steps/commit-and-push.ts';
import { runTestsGate, runValidateGate } from '../steps/gate-steps.ts';
import {
  type IterationProgress,
  measureProgress,
  noProgressStop,
  rememberTree,
  workBlockers,
} from '../steps/progress-step.ts';
import { freshTddBook, type TddStepResult, tddAfterIteration } from '../steps/tdd-step.ts';
import { countOpenTasks } from '../steps/workspace-context.ts';
import type { AgentPhase } from './iteration-agent.ts';
import { stopAfterIteration } from './iteration-stop.ts';

/** How an iteration ended once the agent was done: what the record shows and whether the loop stops. */
export interface IterationOutcome {
  stopAfter: Stop | undefined;
  /** Set when the iteration asked to complete. */
  completion: { accepted: boolean; reasons: string[] } | undefined;
  gates: IterationRecord['gates'];
  commit: string | null;
  tddStep: TddStepResult | undefined;
  /** Review points a human settled (`gates.approval`). */
  approvals: ApprovalEntry[];
  /** What the iteration moved; undefined when it did not finish (aborted, parked). */
  progress?: IterationProgress | undefined;
}

/** The checks run after a successful agent run, before any decision. */
interface AfterAgentChecks {
  agentOk: boolean;
  gates: IterationRecord['gates'];
  testsGate: GateResult | undefined;
  tddStep: TddStepResult | undefined;
  /** The completion marker or the checklist condition holds. */
  markerHit: boolean;
}

/** Everything after the agent: gates, TDD, completion, events, git, and the stop decision. */
export async function settleIteration(ctx: RunContext, phase: AgentPhase): Promise<IterationOutcome> {
  const { state } = ctx;
  const checks = await checkAfterAgent(ctx, phase);
  if (phase.verdict.kind === 'aborted') {
    // Re-run on --resume with the same events.
    if (state.current) state.current.agent_pid = null;
    const { selection } = phase.route;
    state.pending_events = [...selection.consumed, ...selection.remaining, ...phase.collected.published];
    return {
      stopAfter: phase.verdict.stop,
      completion: undefined,
      gates: checks.gates,
      tddStep: checks.tddStep,
      commit: null,
      approvals: [],
    };
  }
  if (phase.verdict.kind === 'parked') {
    // Not a failure and not counted: the same iteration runs again once the limit resets.
    const { verdict } = phase;
    if (state.current) state.current.agent_pid = null;
    const { selection } = phase.route;
    state.pending_events = [...selection.consumed, ...selection.remaining, ...phase.collected.published];
    const parks = state.parks ?? { rateLimit: 0, transient: 0 };
    state.parks = verdict.transient
      ? { ...parks, transient: parks.transient + 1 }
      : { ...parks, rateLimit: parks.rateLimit + 1 };
    state.parked = { until: verdict.until, message: verdict.message, transient: verdict.transient };
    return {
      stopAfter: undefined,
      completion: undefined,
      gates: checks.gates,
      tddStep: checks.tddStep,
      commit: null,
      approvals: [],
    };
  }
  state.parks = { rateLimit: 0, transient: 0 };
  countIteration(ctx, phase, checks.tddStep?.forceFailure);
  state.usage_samples = addSample(state.usage_samples ?? [], {
    hat: phase.route.hatId,
    backend: phase.route.backend.name,
    costUsd: phase.run.meter.spentUsd() ?? 0,
    tokens: phase.tokens.total,
  });
  // Delivered: guidance the prompt carried is not repeated (what arrived meanwhile stays queued).
  if (phase.guidance.length > 0)
    state.guidance = (state.guidance ?? []).filter((g) => !phase.guidance.includes(g.id));
  const approvals: ApprovalEntry[] = [];
  const progress = await measureProgress(ctx, {
    headBefore: phase.headBefore,
    published: phase.collected.published.length,
  });
  let decision = decide(ctx, phase, checks, workBlockers(ctx));
  if (decision.complete) {
    // Review point: completion counts only once a human approves it; a rejection blocks it.
    const blockers = await approveCompletion(ctx, phase.number, approvals);
    if (blockers.length > 0) decision = decide(ctx, phase, checks, [...workBlockers(ctx), ...blockers]);
  }
  const completion = applyDecision(ctx, phase, decision);
  publishResultEvents(ctx, phase, checks, decision);
  const work = await commitValidatePush(ctx, phase, checks, approvals);
  // Ralph's own commit moved HEAD: the next iteration is measured from here.
  if (work.commit) await rememberTree(ctx);
  const stopAfter =
    stopAfterIteration(ctx, {
      phase,
      decision,
      markerHit: checks.markerHit,
      tddStep: checks.tddStep,
      ...work,
    }) ?? noProgressStop(ctx, progress, decision.idle);
  return {
    stopAfter,
    completion,
    gates: checks.gates,
    tddStep: checks.tddStep,
    commit: work.commit,
    approvals,
    progress,
  };
}

/** Git and the validate hook: commit first so a fatal gate leaves the work committed locally. */
async function commitValidatePush(
  ctx: RunContext,
  phase: AgentPhase,
  checks: AfterAgentChecks,
  approvals: ApprovalEntry[],
): Promise<{ commit: string | null; validateGate: GateResult | undefined; pushError: string | undefined }> {
  const { config } = ctx;
  const { number } = phase;
  const commitApproved = checks.agentOk && config.git.commit && (await approveCommit(ctx, number, approvals));
  const commit = commitApproved
    ? await commitStep(ctx, {
        iteration: number,
        hat: phase.route.hatId,
        backendName: phase.route.backend.name,
        summary: phase.finalText,
        before: phase.headBefore,
        tests: checks.testsGate,
      })
    : null;
  const validate = checks.agentOk ? validateCommand(config, ctx.options.workspace) : undefined;
  const validateGate = validate ? await runValidateGate(ctx, number, phase.route.hatId, validate) : undefined;
  if (validateGate) checks.gates.validate = summarize(validateGate);
  const validateFailed = validateGate !== undefined && !validateGate.passed;
  const pushWanted = checks.agentOk && config.git.push && !validateFailed;
  const pushError =
    pushWanted && (await approvePush(ctx, number, approvals)) ? await pushStep(ctx, number) : undefined;
  return { commit, validateGate, pushError };
}

/** The tests gate, the TDD checks and the completion marker, after a successful agent run only. */
async function checkAfterAgent(ctx: RunContext, phase: AgentPhase): Promise<AfterAgentChecks> {
  const { options, config, state } = ctx;
  const { verdict, number } = phase;
  const agentOk = verdict.kind === 'success' || verdict.kind === 'complete';
  const gates: IterationRecord['gates'] = {};
  // The project's tests run after every successful agent run; failing tests block completion.
  const testsGate =
    agentOk && config.gates.tests ? await runTestsGate(ctx, number, phase.route.hatId) : undefined;
  if (testsGate) gates.tests = summarize(testsGate);
  const tddStep =
    agentOk && config.tdd
      ? tddAfterIteration({
          workspace: options.workspace,
          tdd: config.tdd,
          iteration: number,
          tests: testsGate,
          summary: phase.finalText,
          book: state.tdd ?? freshTddBook(),
          now: new Date(ctx.now()),
        })
      : undefined;
  if (tddStep) {
    state.tdd = tddStep.book;
    for (const message of tddStep.warnings) ctx.emit({ type: 'notice', level: 'warn', message });
  }
  const marker = config.completion.marker;
  const markerHit =
    agentOk &&
    ((marker !== undefined && markerReached(options.workspace, marker)) ||
      readChecklist(options.workspace, config, state.start_milestone ?? null)?.complete === true);
  return { agentOk, gates, testsGate, tddStep, markerHit };
}

/** Books a finished (not aborted) iteration: its number, the hat's activation, the failure streak. */
function countIteration(ctx: RunContext, phase: AgentPhase, forcedFailure: string | undefined): void {
  const { state } = ctx;
  const hatId = phase.route.hatId;
  state.iterations = Math.max(state.iterations, phase.number);
  state.current = null;
  // Counted once the activation is over, so a crashed and re-run iteration counts once.
  if (hatId) state.hat_activations[hatId] = (state.hat_activations[hatId] ?? 0) + 1;
  state.consecutive_failures =
    phase.verdict.kind === 'failure' || forcedFailure ? state.consecutive_failures + 1 : 0;
}

/** The event decision (pure): what is pending next, and whether completion is requested and accepted. */
function decide(
  ctx: RunContext,
  phase: AgentPhase,
  checks: AfterAgentChecks,
  humanBlockers: string[] = [],
): EventDecision {
  const { config, state } = ctx;
  const { verdict, route } = phase;
  const { testsGate, tddStep } = checks;
  const forcedFailure = tddStep?.forceFailure;
  return decideEvents({
    iteration: phase.number,
    hatsMode: ctx.hatsMode,
    hatId: route.hatId,
    hat: route.hat,
    succeeded: (verdict.kind === 'success' || verdict.kind === 'complete') && !forcedFailure,
    published: phase.collected.published,
    consumed: route.selection.consumed,
    queued: route.selection.remaining,
    promiseInOutput: ctx.outputPromiseCounts && phase.promiseSeen,
    markerReached: checks.markerHit,
    blockers: [
      ...(testsGate && !testsGate.passed
        ? [`the tests are failing (${testsGate.command}, exit ${testsGate.exitCode ?? 'killed'})`]
        : []),
      ...(tddStep?.completionBlockers ?? []),
      ...humanBlockers,
    ],
    completionPromise: ctx.promise,
    persistent: config.event_loop.persistent,
    requiredEvents: config.event_loop.required_events,
    seenTopics: new Set(state.seen_topics),
    // Read again: the agent may have opened or closed tasks during the iteration.
    openTasks: countOpenTasks(config, ctx.paths),
    recoveries: state.recoveries,
  });
}

/** Publishes what the decision injected, announces the completion verdict, and queues what is next. */
function applyDecision(
  ctx: RunContext,
  phase: AgentPhase,
  decision: EventDecision,
): IterationOutcome['completion'] {
  const { state, emit } = ctx;
  for (const e of decision.injected) {
    ctx.publish(e, phase.route.hatId);
    if (!state.seen_topics.includes(e.topic)) state.seen_topics.push(e.topic);
  }
  if (decision.stale.length > 0) {
    emit({
      type: 'notice',
      level: 'info',
      message: `ignoring stale events from the finished cycle: ${decision.stale.map((e) => e.topic).join(', ')}`,
    });
  }
  let completion: IterationOutcome['completion'];
  if (decision.completion.requested) {
    completion = { accepted: decision.completion.accepted, reasons: decision.completion.reasons };
    emit({
      type: 'completion.decided',
      iteration: phase.number,
      accepted: decision.completion.accepted,
      reasons: decision.completion.reasons,
      persistent: decision.idle,
    });
  }
  state.pending_events = decision.pending;
  state.recoveries = decision.recoveries;
  state.idle = decision.idle;
  return completion;
}

/** Publishes the tests result and the TDD mode, queued for the next iteration while work goes on. */
function publishResultEvents(
  ctx: RunContext,
  phase: AgentPhase,
  checks: AfterAgentChecks,
  decision: EventDecision,
): void {
  const { state } = ctx;
  const { number } = phase;
  const hatId = phase.route.hatId;
  const { testsGate, tddStep } = checks;
  if (testsGate) {
    const ev = {
      topic: testsGate.passed ? 'tests.passed' : 'tests.failed',
      payload: testsGate.passed ? null : `exit ${testsGate.exitCode ?? 'killed'}: ${testsGate.command}`,
      source: 'gate',
      iteration: number,
    };
    ctx.publish(ev, hatId);
    if (!decision.complete && !decision.idle) state.pending_events.push(ev);
  }
  // TDD: the mode for the next iteration (red → engineering, green with creative tasks → creative).
  if (tddStep?.modeEvent && !decision.complete && !decision.idle) {
    const ev = { topic: tddStep.modeEvent, payload: null, source: 'tdd', iteration: number };
    ctx.publish(ev, hatId);
    state.pending_events.push(ev);
  }
}
