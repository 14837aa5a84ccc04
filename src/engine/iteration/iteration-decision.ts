import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import { setCurrent } from '../../state/loop-state/in-flight.ts';
import { noteTopics, queueEvents, setIdle, setQueue } from '../context/event-queue.ts';
import type { RunContext } from '../context/run-context.ts';
import { countFinished } from '../context/spend-and-limits.ts';
import { countOpenTasks } from '../context/workspace-context.ts';
import { outputPromiseCounts } from '../decide/completion.ts';
import {
  asksToComplete,
  decideEvents,
  type EventDecision,
  type EventDecisionInput,
} from '../decide/event-decisions.ts';
import type { GateResult } from '../gates/checks/run-gate.ts';
import { allStoriesPass, markerReached } from '../gates/completion-marker.ts';
import { runTestsGate } from '../gates/gate-commands.ts';
import { readChecklist } from '../workflow-steps/checklist-view.ts';
import {
  freshTddBook,
  keepTddBook,
  type TddStepResult,
  tddAfterIteration,
} from '../workflow-steps/tdd-loop.ts';
import type { AgentPhase } from './iteration-agent.ts';

/** The checks run after a successful agent run, before any decision. */
export interface AfterAgentChecks {
  gates: IterationRecord['gates'];
  testsGate: GateResult | undefined;
  /** gates.tests.affected ran nothing, and why (the record's `tests_skipped`). */
  testsSkipped?: string | undefined;
  tddStep: TddStepResult | undefined;
  /** The completion marker or the checklist condition holds. */
  markerHit: boolean;
  /** With affected tests (top-level or a repository's): the iteration asks to complete. */
  completionRequested?: boolean;
}

/** The tests gate, the TDD checks and the completion marker, after a successful agent run only. */
export async function checkAfterAgent(ctx: RunContext, phase: AgentPhase): Promise<AfterAgentChecks> {
  const { options, config, state } = ctx;
  const { verdict, number } = phase;
  const agentOk = verdict.kind === 'success' || verdict.kind === 'complete';
  const gates: IterationRecord['gates'] = {};
  const marker = config.completion.marker;
  const markerHit =
    agentOk &&
    ((marker !== undefined && markerReached(options.workspace, marker)) ||
      allStoriesPass(config, ctx.paths) ||
      readChecklist(options.workspace, config, state.start_milestone ?? null)?.complete === true);
  // With affected tests, the full suite runs before any completion: the (pure) decision says
  // whether this iteration asks to complete, before the tests' verdict is known.
  const completionRequested =
    agentOk &&
    (config.gates.tests?.affected !== undefined ||
      (config.repos ?? []).some((r) => r.gates?.tests?.affected !== undefined)) &&
    asksToComplete(
      eventInput(ctx, phase, { testsGate: undefined, tddStep: undefined, markerHit }, [], undefined),
    );
  // The project's tests run after every successful agent run; failing tests block completion.
  // With repos they run in each changed repository instead (settleRepos).
  const tests =
    agentOk && config.gates.tests && !config.repos
      ? await runTestsGate(ctx, number, phase.route.hatId, { completionRequested, start: phase })
      : undefined;
  const testsGate = tests?.result;
  if (tests?.summary) gates.tests = tests.summary;
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
    keepTddBook(state, tddStep.book);
    for (const message of tddStep.warnings) ctx.emit({ type: 'notice', level: 'warn', message });
  }
  return { gates, testsGate, testsSkipped: tests?.skipped, tddStep, markerHit, completionRequested };
}

/** Books a finished (not aborted) iteration: its number, the hat's activation, the failure streak. */
export function countIteration(ctx: RunContext, phase: AgentPhase, forcedFailure: string | undefined): void {
  const { state } = ctx;
  const hatId = phase.route.hatId;
  countFinished(state, phase.number, phase.verdict.kind === 'failure' || Boolean(forcedFailure));
  setCurrent(state, null);
  // Counted once the activation is over, so a crashed and re-run iteration counts once.
  if (hatId) state.hat_activations[hatId] = (state.hat_activations[hatId] ?? 0) + 1;
}

/** What the event decision reads: the turn's events, its checks, the blockers, the run's state. */
export function eventInput(
  ctx: RunContext,
  phase: AgentPhase,
  checks: Pick<AfterAgentChecks, 'testsGate' | 'tddStep' | 'markerHit'>,
  humanBlockers: string[],
  forcedFailure: string | undefined,
): EventDecisionInput {
  const { config, state } = ctx;
  const { verdict, route } = phase;
  const { testsGate, tddStep } = checks;
  return {
    iteration: phase.number,
    hatsMode: ctx.hatsMode,
    hatId: route.hatId,
    hat: route.hat,
    succeeded: (verdict.kind === 'success' || verdict.kind === 'complete') && !forcedFailure,
    published: phase.collected.published,
    consumed: route.selection.consumed,
    queued: route.selection.remaining,
    promiseInOutput: outputPromiseCounts(ctx.condition) && phase.promiseSeen,
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
  };
}

/** The event decision (pure, once per iteration): what is pending next, and whether completion is requested and accepted. */
export function decide(input: EventDecisionInput, lateBlockers: readonly string[]): EventDecision {
  return decideEvents({ ...input, blockers: [...(input.blockers ?? []), ...lateBlockers] });
}

/** Publishes what the decision injected, announces the completion verdict, and queues what is next. */
export function applyDecision(
  ctx: RunContext,
  phase: AgentPhase,
  decision: EventDecision,
): { accepted: boolean; reasons: string[] } | undefined {
  const { state, emit } = ctx;
  for (const e of decision.injected) {
    ctx.publish(e, phase.route.hatId);
    noteTopics(state, [e]);
  }
  if (decision.stale.length > 0) {
    emit({
      type: 'notice',
      level: 'info',
      message: `ignoring stale events from the finished cycle: ${decision.stale.map((e) => e.topic).join(', ')}`,
    });
  }
  let completion: { accepted: boolean; reasons: string[] } | undefined;
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
  setQueue(state, decision.pending);
  state.recoveries = decision.recoveries;
  setIdle(state, decision.idle);
  return completion;
}

/** Publishes the tests result and the TDD mode, queued for the next iteration while work goes on. */
export function publishResultEvents(
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
    if (!decision.complete && !decision.idle) queueEvents(state, [ev]);
  }
  // TDD: the mode for the next iteration (red → engineering, green with creative tasks → creative).
  if (tddStep?.modeEvent && !decision.complete && !decision.idle) {
    const ev = { topic: tddStep.modeEvent, payload: null, source: 'tdd', iteration: number };
    ctx.publish(ev, hatId);
    queueEvents(state, [ev]);
  }
}
