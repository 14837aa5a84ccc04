import { type AgentTurnResult, runAgentTurn } from '../../agent/agent-turn.ts';
import type { AgentInvocation } from '../../backends/types.ts';
import type { SandboxDenialRecord, TokenTotals, WaveRecord } from '../../state/iteration-record-shape.ts';
import { noteAgent } from '../../state/loop-state/in-flight.ts';
import type { PendingEvent } from '../../state/loop-state.ts';
import {
  denialsNotice,
  emitTurnEvent,
  judgeTurn,
  turnController,
  turnDenials,
  turnLimits,
} from '../context/agent-turns.ts';
import { noteEventsRead, noteTopics } from '../context/event-queue.ts';
import { type RunContext, ralphEnv, turnSandbox } from '../context/run-context.ts';
import { noteElapsed, recordSpend } from '../context/spend-and-limits.ts';
import { misplacedPromise, outputPromiseCounts, promiseFulfilled } from '../decide/completion.ts';
import { agentFailureDetail, type FailureDetail } from '../decide/failure-hint.ts';
import { type IterationVerdict, verdictFromExitClass } from '../decide/limits.ts';
import type { RulesSnapshot } from '../gates/checks/path-rules.ts';
import { setAsideDamagedFiles } from '../gates/own-files.ts';
import { pollStopNow } from '../steering/control-inbox.ts';
import { createProgressWatch } from '../steering/progress-watch.ts';
import { createQuestionWatch } from '../steering/question-watch.ts';
import { type Collected, collectEvents } from './collect-events.ts';
import type { IterationRoute } from './iteration-prompt.ts';
import { bookModelSpend } from './model-rung.ts';
import type { PlannedWave } from './plan-iteration.ts';
import type { WaveRun } from './wave/wave-run.ts';

/** An iteration whose prompt is built and whose start is announced. */
export interface StartedIteration {
  number: number;
  route: IterationRoute;
  prompt: string;
  invocation: AgentInvocation;
  startedAt: number;
  /** HEAD when the iteration started. */
  headBefore: string | null;
  /** Outside git, with gates.tests.affected: the workspace's files when it started (changed-files.ts). */
  filesBefore?: ReadonlyMap<string, string> | null | undefined;
  /** With `rules`: the files under their directories when it started (rules-start.ts; null: unknown). */
  rulesBefore?: RulesSnapshot | null | undefined;
  /** Ids of the human guidance the prompt carried. */
  guidance: string[];
  /** `hats.<hat>.concurrency`: the agent wave this iteration runs instead of one agent. */
  wave?: PlannedWave | undefined;
}

/** An iteration after its agent run: what the agent did, how it ended, what it published. */
export interface AgentPhase extends StartedIteration {
  /** The iteration timeout that applied (the hat's own, or event_loop's). */
  iterationMs: number;
  run: AgentTurnResult;
  /** This iteration's usage. */
  tokens: TokenTotals;
  finalText: string;
  promiseSeen: boolean;
  /** The promise was in the output, but not on its last line (so it did not count). */
  promiseMisplaced: { line: number; lines: number } | undefined;
  /** A failed run: the agent's last stderr lines and what to do about them. */
  failure: FailureDetail | undefined;
  verdict: IterationVerdict;
  collected: Collected;
  /** Ralph's own files the agent damaged, moved aside (setAsideDamagedFiles): the iteration fails. */
  damaged: string[];
  /** Ids of the questions the agent asked (`ralph ask`). */
  questions: string[];
  /** `sandbox: on`: what the sandbox refused the agent. */
  sandbox?: { mode: 'on'; denials: SandboxDenialRecord[] } | undefined;
  /** An agent wave's members, for the iteration record. */
  waveRecord?: WaveRecord | undefined;
}

/** Runs the agent under the iteration's limits, books its usage and judges how it ended. */
export async function runIterationAgent(ctx: RunContext, it: StartedIteration): Promise<AgentPhase> {
  const { options, config, state } = ctx;
  const { number, route, invocation } = it;
  const iterationMs = (route.hat?.timeout ?? config.event_loop.iteration_timeout_seconds) * 1000;
  const questions = createQuestionWatch(ctx, number);
  const progress = createProgressWatch(ctx, number);
  const turn = turnController(ctx);
  let ticks = 0;
  const sandbox = turnSandbox(ctx, route.backend.name, invocation.command);
  // `ralph ask` suspends the idle timeout while the agent waits for a human.
  const idleSuspended = () => questions.waiting();
  const onTick = () => {
    questions.poll();
    progress.poll();
    // The control channel: `ralph stop --now` kills the agent.
    pollStopNow(ctx, turn.controller);
    // The state heartbeat: 2.5 s into the agent's run (state.json then shows its pid to a reader of
    // the raw file; the in-flight file had it from the start), then about every 5 s.
    if (++ticks === 5 || ticks % 10 === 0) {
      noteElapsed(state, ctx.elapsed());
      ctx.persist({ fsync: false });
    }
  };
  let wave: WaveRun | undefined;
  // Loaded only for a wave: the run's start carries none of it (the startup-modules budget).
  const waveCode = it.wave
    ? await Promise.all([import('./wave/wave-run.ts'), import('./wave/wave-results.ts')])
    : undefined;
  if (it.wave && waveCode) {
    ctx.emit({
      type: 'notice',
      level: 'info',
      message: `iteration ${number}: a wave of ${it.wave.runs.length} agents (hat ${route.hatId}), ${it.wave.concurrency} at once`,
    });
    wave = await waveCode[0]
      .runWave(
        ctx,
        { number, hatId: route.hatId, backend: route.backend, wave: it.wave },
        { signal: turn.controller.signal, env: [config.cli.env], onTick, idleSuspended },
      )
      .finally(() => turn.release());
  }
  const run = wave
    ? wave.run
    : await runAgentTurn(route.backend, invocation, {
        cwd: options.workspace,
        env: ralphEnv(ctx, number, route.hatId, [config.cli.env, invocation.env]),
        limits: turnLimits(ctx, iterationMs, 'iteration_timeout'),
        signal: turn.controller.signal,
        idleSuspended,
        onTick,
        onEvent: (e) => {
          if (e.type === 'agent.spawned') {
            noteAgent(state, e.pid, e.startTime ?? null);
            // Bookkeeping: after a crash of Ralph it is on disk; only a power loss could lose it, and then
            // the agent is gone too. The iteration's commit point below flushes the state.
            ctx.persistInFlight();
          }
          emitTurnEvent(ctx, number, e);
        },
        sweep: { select: { runId: state.run_id }, kill: ctx.sweep },
        redact: ctx.redact,
        sandbox,
      }).finally(() => turn.release());

  const sup = run.supervised;
  const denials = sandbox ? turnDenials(run, sandbox.policy) : [];
  denialsNotice(ctx, number, denials);
  // The agent is gone: a question it left open waits for nobody, unless the iteration re-runs on
  // --resume (Ctrl-C, `ralph stop --now`): its `ralph ask` then waits for the same question again.
  questions.close(sup.killedBy === 'interrupted' || sup.killedBy === 'stop_requested');
  // A note sent just before the agent exited.
  progress.poll();
  const tokens = run.meter.totals();
  recordSpend(state, tokens, run.meter.spentUsd() ?? 0);
  bookModelSpend(state, route.ladder?.model ?? run.meter.model, run.meter.spentUsd());
  noteElapsed(state, ctx.elapsed());
  const { finalText } = run;
  // A wave's members each work on one event: none of them completes the run.
  const promiseSeen = !wave && promiseFulfilled(finalText, ctx.promise, it.prompt);
  const promiseMisplaced =
    promiseSeen || !outputPromiseCounts(ctx.condition)
      ? undefined
      : misplacedPromise(finalText, ctx.promise, it.prompt);
  const judged = judgeTurn(ctx, run, promiseSeen);
  // The backend reads how its CLI ended: a rate limit parks the loop, an auth error stops it.
  const cls =
    judged.kind === 'failure'
      ? route.backend.classifyExit?.({
          exitCode: sup.exitCode,
          signal: sup.signal,
          killedBy: sup.killedBy,
          stdoutTail: sup.stdoutTail,
          stderrTail: sup.stderrTail,
          events: run.events,
        })
      : undefined;
  const verdict = verdictFromExitClass(judged, cls, ctx.now(), state.parks ?? { rateLimit: 0, transient: 0 });
  // Before anything reads them: the events file, tasks and memories as plain files again.
  const damaged = setAsideDamagedFiles(ctx, number);
  // A stopped or parked wave runs again whole: its members' results are not handed on.
  const waveResults =
    wave && it.wave && waveCode && verdict.kind !== 'aborted' && verdict.kind !== 'parked'
      ? waveCode[1].collectWaveResults(ctx, number, route.hatId, wave.members, it.wave.concurrency)
      : undefined;
  const collected = collectAgentEvents(
    ctx,
    number,
    route.hatId,
    verdict.kind === 'aborted' || wave ? null : finalText,
    it.prompt,
    waveResults?.published ?? [],
  );
  const failure = judged.kind === 'failure' ? agentFailureDetail(sup.stderrTail, sup.exitCode) : undefined;
  return {
    ...it,
    iterationMs,
    run,
    tokens,
    finalText,
    promiseSeen,
    promiseMisplaced,
    failure,
    verdict,
    collected,
    damaged,
    questions: questions.asked(),
    ...(sandbox ? { sandbox: { mode: 'on' as const, denials } } : {}),
    ...(wave && it.wave && waveCode
      ? { waveRecord: waveResults?.record ?? waveCode[1].waveRecord(wave.members, it.wave.concurrency, []) }
      : {}),
  };
}

/** What the agent published: `ralph emit` lines and `<event>` tags in its final text. */
function collectAgentEvents(
  ctx: RunContext,
  number: number,
  hatId: string | null,
  finalText: string | null,
  prompt: string,
  waveResults: readonly PendingEvent[],
): Collected {
  const { state, emit } = ctx;
  const collected = collectEvents({
    eventsFile: ctx.eventsFile,
    offset: state.events_offset,
    streak: state.malformed_streak,
    iteration: number,
    hat: hatId,
    finalText,
    prompt,
    defaultSource: 'agent',
    redact: ctx.redact,
    cleanFile: true,
  });
  noteEventsRead(state, collected);
  collected.published.push(...waveResults);
  for (const m of collected.malformed) {
    emit({ type: 'event.malformed', iteration: number, line: m.line, error: m.error });
    ctx.publish(
      { topic: 'event.malformed', payload: `${m.error}: ${m.line}`, source: 'loop', iteration: number },
      hatId,
    );
  }
  for (const e of collected.published)
    emit({
      type: 'event.published',
      iteration: number,
      hat: hatId,
      topic: e.topic,
      payload: e.payload,
      source: e.source,
    });
  noteTopics(state, collected.published);
  return collected;
}
