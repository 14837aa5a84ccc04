import type { AgentEvent, AgentInvocation, OutputParser } from '../../backends/types.ts';
import type { LoopEvent } from '../../observe/events.ts';
import { type SuperviseResult, supervise } from '../../process/supervisor.ts';
import { UsageMeter } from '../context/usage-meter.ts';

export interface AgentRunInput {
  iteration: number;
  invocation: AgentInvocation;
  parser: OutputParser;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  timeoutReason: string;
  idleTimeoutMs: number;
  /** A silent agent gets an `agent.heartbeat` event at most this often (and only once silent this long). */
  heartbeatMs: number;
  killGraceMs: number;
  /** Aborted with reason `interrupted` on Ctrl-C. */
  signal: AbortSignal | undefined;
  /**
   * The control channel, polled while the agent runs: `stopNow` kills the agent (`ralph stop --now`);
   * `waitingForHuman` suspends the idle timeout while the agent waits in `ralph ask`.
   */
  control: { poll(): { stopNow: boolean }; waitingForHuman(): boolean };
  /** Budget left for this iteration; crossing either kills the agent mid-iteration. */
  costLeftUsd: number | undefined;
  tokensLeft: number | undefined;
  emit: (e: LoopEvent) => void;
  onSpawn: (pid: number, startTime: string | undefined) => void;
  /** Called about every 5 s while the agent runs (state heartbeat). */
  onHeartbeat: () => void;
}

export interface AgentRunResult {
  supervised: SuperviseResult;
  meter: UsageMeter;
  resultError: boolean;
  /** The most recent normalized events (bounded), for the backend's exit classification. */
  events: AgentEvent[];
}

/** Runs the agent for one iteration under every limit that applies during an iteration. */
export async function runAgent(input: AgentRunInput): Promise<AgentRunResult> {
  const controller = new AbortController();
  const abort = (reason: string) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onOuterAbort = () => abort('interrupted');
  if (input.signal?.aborted) abort('interrupted');
  input.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const meter = new UsageMeter();
  const recent: AgentEvent[] = [];
  let resultError = false;
  let ticks = 0;
  const started = Date.now();
  let lastOutput = started;
  let lastBeat = started;
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
  const tick = () => {
    if (input.control.poll().stopNow) abort('stop_requested');
    if (++ticks % 10 === 0) input.onHeartbeat();
    // A silent agent is still alive: say so, at most once per heartbeat interval.
    const now = Date.now();
    if (now - lastOutput >= input.heartbeatMs && now - lastBeat >= input.heartbeatMs) {
      lastBeat = now;
      input.emit({
        type: 'agent.heartbeat',
        iteration: input.iteration,
        runningMs: now - started,
        silentMs: now - lastOutput,
      });
    }
  };
  const poll = setInterval(guard(tick), 500);

  try {
    const supervised = await supervise({
      command: input.invocation.command,
      args: input.invocation.args,
      cwd: input.cwd,
      env: input.env,
      stdin: input.invocation.stdin,
      timeoutMs: input.timeoutMs,
      timeoutReason: input.timeoutReason,
      idleTimeoutMs: input.idleTimeoutMs,
      idleSuspended: () => input.control.waitingForHuman(),
      killGraceMs: input.killGraceMs,
      signal: controller.signal,
      onSpawn: guard(input.onSpawn),
      onChunk: guard((stream, text) => {
        lastOutput = Date.now();
        input.emit({ type: 'agent.output', iteration: input.iteration, stream, text });
      }),
      onLine: guard((stream, line) => {
        if (stream !== 'stdout') return;
        for (const event of input.parser.parseLine(line)) {
          recent.push(event);
          if (recent.length > 200) recent.splice(0, recent.length - 100);
          meter.add(event);
          if (event.type === 'result' && event.isError) resultError = true;
          input.emit({ type: 'agent.event', iteration: input.iteration, event });
        }
        if (input.costLeftUsd !== undefined && (meter.spentUsd() ?? 0) >= input.costLeftUsd)
          abort('max_cost');
        if (input.tokensLeft !== undefined && meter.totals().total >= input.tokensLeft) abort('max_tokens');
      }),
    });
    if (failed) throw failed.error;
    return { supervised, meter, resultError, events: recent };
  } finally {
    clearInterval(poll);
    input.signal?.removeEventListener('abort', onOuterAbort);
  }
}
