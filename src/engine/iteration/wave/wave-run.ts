import { join } from 'node:path';
import { type AgentTurnResult, runAgentTurn } from '../../../agent/agent-turn.ts';
import { SummedMeter, UsageMeter } from '../../../agent/usage-meter.ts';
import type { Backend } from '../../../backends/types.ts';
import { waveDirOf } from '../../../state/events-log.ts';
import { writeFileAtomicSync } from '../../../state/io/atomic-write.ts';
import { noteAgent } from '../../../state/loop-state/in-flight.ts';
import { emitTurnEvent, judgeTurn, turnLimits } from '../../context/agent-turns.ts';
import { type RunContext, ralphEnv, turnSandbox } from '../../context/run-context.ts';
import type { PlannedWave } from '../plan-iteration.ts';
import { runBounded } from './wave-plan.ts';

// Agent waves (docs/guide/agent-waves.md): the members of one iteration, each a supervised agent
// turn with its own events file, at most `concurrency` at once, under the run's shared caps.

/** One member of a wave after it ran (`run` undefined: the wave was stopped before it started). */
export interface WaveMemberRun {
  index: number;
  topic: string;
  prompt: string;
  /** The member's own events file (`RALPH_EVENTS_FILE`): what it published, attributed to it. */
  eventsFile: string;
  run: AgentTurnResult | undefined;
  /** Why it failed (judged as an iteration's agent is), or undefined when it succeeded. */
  failure: string | undefined;
}

export interface WaveRun {
  /** The members as one turn: summed usage, the wave's stop or its representative member's end. */
  run: AgentTurnResult;
  members: WaveMemberRun[];
}

type Supervised = AgentTurnResult['supervised'];

/** Kills that stop the run, not just a member: the whole wave ends with them. */
const RUN_STOPS = new Set(['interrupted', 'stop_requested', 'max_runtime', 'max_cost', 'max_tokens']);

/** Where member `index` of iteration `number` publishes: beside the run's events file. */
export function memberEventsFile(ctx: RunContext, number: number, index: number): string {
  return join(waveDirOf(ctx.eventsFile), `${number}-${index}.jsonl`);
}

/**
 * Runs the wave's members, at most `concurrency` at once. `signal` is the turn's (Ctrl-C, `ralph
 * stop --now`); the wave's own deadline (`aggregate.timeout`) and the run's cost and token caps,
 * counted over every member, abort it too. What the members left running is swept once all ended.
 */
export async function runWave(
  ctx: RunContext,
  it: { number: number; hatId: string | null; backend: Backend; wave: PlannedWave },
  o: {
    signal: AbortSignal;
    env: Record<string, string>[];
    onTick: () => void;
    idleSuspended: () => boolean;
  },
): Promise<WaveRun> {
  const { state } = ctx;
  const { number, wave } = it;
  const total = wave.runs.length;
  const waveStop = new AbortController();
  const signal = AbortSignal.any([o.signal, waveStop.signal]);
  const deadline =
    wave.waveMs === undefined ? undefined : setTimeout(() => waveStop.abort('wave_timeout'), wave.waveMs);
  // The run's budget as it stood when the wave started, spent by all members together.
  const budget = turnLimits(ctx, wave.memberMs, 'iteration_timeout');
  const live: UsageMeter[] = [];
  const spent = new SummedMeter(live);
  const overBudget = () => {
    if (budget.costLeftUsd !== undefined && (spent.spentUsd() ?? 0) >= budget.costLeftUsd)
      waveStop.abort('max_cost');
    else if (budget.tokensLeft !== undefined && spent.totals().total >= budget.tokensLeft)
      waveStop.abort('max_tokens');
  };
  const startedAt = Date.now();
  // A member whose bookkeeping failed (a full disk) stops the wave; the error is thrown once all ended.
  let failed: { error: unknown } | undefined;
  const runMember = async (m: PlannedWave['runs'][number]): Promise<WaveMemberRun> => {
    const eventsFile = memberEventsFile(ctx, number, m.index);
    // A re-run after a crash starts the member afresh: what its first try published is dropped.
    writeFileAtomicSync(eventsFile, '', { fsync: false });
    const env = ralphEnv(ctx, number, it.hatId, [...o.env, m.invocation.env]);
    Object.assign(env, {
      RALPH_EVENTS_FILE: eventsFile,
      RALPH_WAVE_WORKER: '1',
      RALPH_WAVE_ID: `${state.run_id}-${number}`,
      RALPH_WAVE_INDEX: String(m.index),
      RALPH_WAVE_TOTAL: String(total),
    });
    const meter = new UsageMeter();
    live.push(meter);
    const run = await runAgentTurn(it.backend, m.invocation, {
      cwd: ctx.options.workspace,
      env,
      limits: {
        ...turnLimits(ctx, wave.memberMs, 'iteration_timeout'),
        costLeftUsd: undefined,
        tokensLeft: undefined,
      },
      signal,
      idleSuspended: o.idleSuspended,
      onTick: o.onTick,
      onEvent: (e) => {
        if (e.type === 'agent.spawned') {
          // One group is recorded for a crash's kill; the resume's sweep of the run's mark finds the rest.
          if (state.current && state.current.agent_pid === null) {
            noteAgent(state, e.pid, e.startTime ?? null);
            ctx.persistInFlight();
          }
          ctx.emit({
            type: 'notice',
            level: 'info',
            message: `iteration ${number}: wave member ${m.index + 1}/${total} started (${m.event.topic})`,
          });
        }
        if (e.type === 'agent.event') {
          meter.add(e.event);
          overBudget();
        }
        emitTurnEvent(ctx, number, e);
      },
      // A member's sweep would kill its siblings (they share the iteration's mark): the wave sweeps once at its end.
      sweep: { select: { runId: '' }, kill: async () => [] },
      redact: ctx.redact,
      sandbox: turnSandbox(ctx, it.backend.name, m.invocation.command),
    });
    const judged = judgeTurn(ctx, run, false);
    const failure =
      judged.kind === 'success'
        ? undefined
        : 'why' in judged
          ? judged.why
          : 'stop' in judged
            ? judged.stop.message
            : judged.kind;
    ctx.emit({
      type: 'notice',
      level: failure ? 'warn' : 'info',
      message: `iteration ${number}: wave member ${m.index + 1}/${total} ${failure ? `failed: ${failure}` : 'done'} (${Math.round(run.supervised.durationMs / 1000)}s)`,
    });
    return { index: m.index, topic: m.event.topic, prompt: m.prompt, eventsFile, run, failure };
  };
  const members = await runBounded(
    wave.runs,
    wave.concurrency,
    (m) =>
      runMember(m).catch((error: unknown) => {
        failed ??= { error };
        waveStop.abort('write_failed');
        return skipped(m, 'write_failed');
      }),
    { now: () => signal.aborted, result: (m) => skipped(m, String(signal.reason)) },
  ).finally(() => clearTimeout(deadline));
  const swept = await ctx.sweep({ runId: state.run_id }, Math.min(ctx.graceMs, 1000));
  if (failed) throw failed.error;
  const stop = typeof signal.reason === 'string' && RUN_STOPS.has(signal.reason) ? signal.reason : null;
  return { run: combine(members, stop, swept, Date.now() - startedAt), members };

  function skipped(m: PlannedWave['runs'][number], why: string): WaveMemberRun {
    return {
      index: m.index,
      topic: m.event.topic,
      prompt: m.prompt,
      eventsFile: memberEventsFile(ctx, number, m.index),
      run: undefined,
      failure: `not started: the wave was stopped (${why})`,
    };
  }
}

/**
 * The wave as one turn for the iteration's judgement: stopped as the run was stopped, else ended as
 * its first successful member (a wave fails only when every member failed), else as its first member.
 */
function combine(
  members: readonly WaveMemberRun[],
  stop: string | null,
  swept: AgentTurnResult['swept'],
  durationMs: number,
): AgentTurnResult {
  const ran = members.flatMap((m) => (m.run ? [m.run] : []));
  const byStop = ran.find((r) => r.supervised.killedBy !== null && RUN_STOPS.has(r.supervised.killedBy));
  // A member that reached the run's runtime ends the run as a stopped wave would.
  stop ??= byStop?.supervised.killedBy ?? null;
  const ok = members.find((m) => m.run && m.failure === undefined)?.run;
  const rep = stop !== null ? byStop : (ok ?? ran[0]);
  const supervised: Supervised = {
    ...(rep?.supervised ?? idle()),
    ...(stop !== null && rep?.supervised.killedBy !== stop ? { killedBy: stop } : {}),
    killed: ran.flatMap((r) => r.supervised.killed),
    durationMs,
  };
  return {
    supervised,
    meter: new SummedMeter(ran.map((r) => r.meter)),
    finalText: members
      .filter((m) => m.run?.finalText)
      .map((m) => `### Wave member ${m.index + 1}\n${m.run?.finalText}`)
      .join('\n\n'),
    resultError: rep?.resultError ?? false,
    events: ran.flatMap((r) => r.events).slice(-200),
    swept,
  };
}

/** The end of a wave none of whose members started. */
function idle(): Supervised {
  return {
    pid: undefined,
    exitCode: null,
    signal: null,
    killedBy: null,
    spawnError: undefined,
    leftoverKilled: 0,
    killed: [],
    stdoutTail: '',
    stderrTail: '',
    truncated: false,
    durationMs: 0,
  };
}
