import type { AgentEvent, AgentInvocation, Backend } from '../backends/types.ts';
import { redactDeep } from '../observe/redact.ts';
import { trace, tracing } from '../process/debug-trace.ts';
import type { KilledProcess, MarkSelector, SweepMarked } from '../process/marked-processes.ts';
import { type OutputStream, type SuperviseResult, supervise } from '../process/supervisor.ts';
import type { SandboxPolicy } from '../sandbox/sandbox-types.ts';
import { wrapCommand } from '../sandbox/wrap-command.ts';
import { UsageMeter } from './usage-meter.ts';

/** The caps one agent turn runs under; crossing any kills the agent's whole process group. */
export interface TurnLimits {
  /** Hard deadline of the turn, and the reason reported when it fires (`max_runtime` when the run's runtime is nearer). */
  timeoutMs: number;
  timeoutReason: string;
  /** Kill after this long without output (`idle_timeout`). */
  idleTimeoutMs?: number | undefined;
  /** A silent agent gets an `agent.heartbeat` event at most this often (and only once silent this long). */
  heartbeatMs?: number | undefined;
  killGraceMs: number;
  /** Budget left for this turn: streamed cost or tokens reaching it kills the agent (`max_cost` / `max_tokens`). */
  costLeftUsd?: number | undefined;
  tokensLeft?: number | undefined;
}

/** What a turn reports while it runs (the engine stamps these with its iteration). */
export type AgentTurnEvent =
  | {
      type: 'agent.spawned';
      pid: number;
      startTime: string | undefined;
      /** The agent's own command (not the sandbox wrapper's). */
      command: string;
      /** It runs inside `sandbox: on` (the pid is the wrapper's; its group holds the agent). */
      sandboxed?: true | undefined;
    }
  | { type: 'agent.output'; stream: OutputStream; text: string }
  | { type: 'agent.event'; event: AgentEvent }
  | { type: 'agent.heartbeat'; runningMs: number; silentMs: number };

export interface AgentTurnOptions {
  cwd: string;
  /** The agent's whole environment, its process mark included (agent-env.ts). */
  env: NodeJS.ProcessEnv;
  limits: TurnLimits;
  /** Aborting kills the agent; a string reason becomes `killedBy`, anything else is `interrupted`. */
  signal?: AbortSignal | undefined;
  onEvent?: ((event: AgentTurnEvent) => void) | undefined;
  /** While this says true the idle clock stands still (the agent waits for a human in `ralph ask`). */
  idleSuspended?: (() => boolean) | undefined;
  /** Called about every 500 ms while the agent runs (the loop polls its control channel here). */
  onTick?: (() => void) | undefined;
  /**
   * After the agent exits, every process carrying the selected mark is killed: what it detached
   * from its group (setsid, daemons). `kill` is the run's sweep (a fleet worker's is fenced).
   */
  sweep: { select: MarkSelector; kill: SweepMarked };
  /**
   * The run's redaction (observe/redact.ts): the text the turn returns (its final answer, its output's
   * tails, its last events) is where an agent's summary, commit subject, failure detail and exit
   * classification (a parked or stop message) come from, so it leaves here redacted. The streamed
   * output is redacted by the reporters (stream-redaction.ts).
   */
  redact: (text: string) => string;
  /** `sandbox: on`: the agent runs inside this policy's wrapper (bwrap / sandbox-exec), its whole group with it. */
  sandbox?: { policy: SandboxPolicy } | undefined;
}

export interface AgentTurnResult {
  supervised: SuperviseResult;
  meter: UsageMeter;
  /** The agent's final answer, as its backend's parser reads it (redacted). */
  finalText: string;
  resultError: boolean;
  /** The most recent normalized events (bounded, redacted), for the backend's exit classification. */
  events: AgentEvent[];
  /** Marked processes the sweep after the agent killed. */
  swept: KilledProcess[];
}

/**
 * One agent turn (DESIGN.md §3): the backend's invocation, spawned in its own process group under
 * the turn's caps, its output parsed and metered as it streams, and whatever it left running swept.
 * Every agent process Ralph starts headless runs through here.
 */
export async function runAgentTurn(
  backend: Pick<Backend, 'name' | 'createParser'>,
  invocation: AgentInvocation,
  o: AgentTurnOptions,
): Promise<AgentTurnResult> {
  const { limits } = o;
  const controller = new AbortController();
  const abort = (reason: string) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onOuterAbort = () => abort(typeof o.signal?.reason === 'string' ? o.signal.reason : 'interrupted');
  if (o.signal?.aborted) onOuterAbort();
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const parser = backend.createParser();
  const meter = new UsageMeter();
  const recent: AgentEvent[] = [];
  let resultError = false;
  const started = Date.now();
  let lastOutput = started;
  let lastBeat = started;
  const heartbeatMs = limits.heartbeatMs;
  // A callback that fails (a full disk under the run log or state.json) stops the agent, and its
  // error is thrown once the agent is gone instead of escaping from a stream or timer handler.
  let failed: { error: unknown } | undefined;
  const guard =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void => {
      if (failed) return;
      try {
        fn(...args);
      } catch (error) {
        failed = { error };
        abort('write_failed');
      }
    };
  const tick = setInterval(
    guard(() => {
      o.onTick?.();
      // A silent agent is still alive: say so, at most once per heartbeat interval.
      const now = Date.now();
      if (heartbeatMs !== undefined && now - lastOutput >= heartbeatMs && now - lastBeat >= heartbeatMs) {
        lastBeat = now;
        o.onEvent?.({ type: 'agent.heartbeat', runningMs: now - started, silentMs: now - lastOutput });
      }
    }),
    500,
  );

  // Plain text is read a chunk at a time (one event per chunk, not per line); JSON a line at a time.
  const byChunk = parser.parseChunk !== undefined;
  const parsed = (events: AgentEvent[]) => {
    for (const event of events) {
      recent.push(event);
      if (recent.length > 200) recent.splice(0, recent.length - 100);
      meter.add(event);
      if (event.type === 'result' && event.isError) resultError = true;
      o.onEvent?.({ type: 'agent.event', event });
    }
    if (limits.costLeftUsd !== undefined && (meter.spentUsd() ?? 0) >= limits.costLeftUsd) abort('max_cost');
    if (limits.tokensLeft !== undefined && meter.totals().total >= limits.tokensLeft) abort('max_tokens');
  };

  // The wrapper execs the agent in the same process group: caps, group kill and the sweep hold as before.
  const spawned = o.sandbox
    ? wrapCommand(
        o.sandbox.policy,
        { command: invocation.command, args: invocation.args },
        process.platform,
        {
          env: o.env,
        },
      )
    : { command: invocation.command, args: invocation.args };
  if (tracing())
    trace({
      kind: 'agent.spawn',
      backend: backend.name,
      command: spawned.command,
      args: spawned.args,
      cwd: o.cwd,
      sandboxed: o.sandbox !== undefined,
    });
  let supervised: SuperviseResult;
  try {
    supervised = await supervise({
      command: spawned.command,
      args: spawned.args,
      contained: spawned.contained,
      cwd: o.cwd,
      env: o.env,
      stdin: invocation.stdin,
      timeoutMs: limits.timeoutMs,
      timeoutReason: limits.timeoutReason,
      idleTimeoutMs: limits.idleTimeoutMs,
      idleSuspended: o.idleSuspended,
      killGraceMs: limits.killGraceMs,
      signal: controller.signal,
      onSpawn: guard((pid: number, startTime: string | undefined) =>
        o.onEvent?.({
          type: 'agent.spawned',
          pid,
          startTime,
          command: invocation.command,
          ...(o.sandbox ? { sandboxed: true as const } : {}),
        }),
      ),
      onChunk: guard((stream: OutputStream, text: string) => {
        lastOutput = Date.now();
        o.onEvent?.({ type: 'agent.output', stream, text });
        if (byChunk && stream === 'stdout') parsed(parser.parseChunk!(text));
      }),
      onLine: byChunk
        ? undefined
        : guard((stream: OutputStream, line: string) => {
            if (stream === 'stdout') parsed(parser.parseLine(line));
          }),
    });
    // What only the end of the output tells: a chunk parser's last line, a last prompt that failed.
    if (!failed) guard(() => parsed(parser.flush?.() ?? []))();
  } finally {
    clearInterval(tick);
    o.signal?.removeEventListener('abort', onOuterAbort);
  }
  // The agent is the one process started since the last sweep (when it was started at all).
  const swept = await o.sweep.kill(o.sweep.select, Math.min(limits.killGraceMs, 1000), {
    started: supervised.pid === undefined ? undefined : 1,
  });
  if (failed) throw failed.error;
  const { redact } = o;
  return {
    supervised: {
      ...supervised,
      stdoutTail: redact(supervised.stdoutTail),
      stderrTail: redact(supervised.stderrTail),
    },
    meter,
    finalText: redact(parser.finalText()),
    resultError,
    events: recent.map((e) => redactDeep(e, redact)),
    swept,
  };
}
