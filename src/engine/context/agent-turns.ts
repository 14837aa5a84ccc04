import type { AgentTurnEvent, AgentTurnResult, TurnLimits } from '../../agent/agent-turn.ts';
import type { KilledProcess } from '../../process/marked-processes.ts';
import { explainDenials } from '../../sandbox/denials.ts';
import type { SandboxPolicy } from '../../sandbox/sandbox-types.ts';
import type { SandboxDenialRecord } from '../../state/iteration-record-shape.ts';
import { type IterationVerdict, judgeIteration } from '../decide/limits.ts';
import { type RunContext, runtimeLeftMs } from './run-context.ts';

// What every agent turn of a run shares, whoever starts it (the iteration's agent, the reviewer):
// the run's caps, Ctrl-C, and the event stream.

/**
 * The caps of one agent turn of this run: its own deadline or the runtime left (whichever is
 * nearer), the idle timeout, and the cost and tokens left of the run's budget.
 */
export function turnLimits(ctx: RunContext, turnMs: number, turnReason: string): TurnLimits {
  const { config, limits, state } = ctx;
  const runtimeLeft = runtimeLeftMs(ctx);
  return {
    timeoutMs: Math.max(0, Math.min(turnMs, runtimeLeft)),
    timeoutReason: runtimeLeft < turnMs ? 'max_runtime' : turnReason,
    idleTimeoutMs: config.event_loop.idle_timeout_seconds * 1000,
    heartbeatMs: config.event_loop.heartbeat_seconds * 1000,
    killGraceMs: ctx.graceMs,
    costLeftUsd: limits.maxCostUsd === undefined ? undefined : limits.maxCostUsd - state.cost_usd,
    tokensLeft: limits.maxTokens === undefined ? undefined : limits.maxTokens - state.tokens.total,
  };
}

/**
 * The abort controller of one turn: the run's signal (Ctrl-C, a fleet cancel) kills the agent as
 * `interrupted`; the caller may abort it with its own reason (`stop_requested`).
 */
export function turnController(ctx: RunContext): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  const outer = ctx.options.signal;
  const onAbort = () => {
    if (!controller.signal.aborted) controller.abort('interrupted');
  };
  if (outer?.aborted) onAbort();
  outer?.addEventListener('abort', onAbort, { once: true });
  return { controller, release: () => outer?.removeEventListener('abort', onAbort) };
}

/** A turn's events on the run's event stream, as events of `iteration`. */
export function emitTurnEvent(ctx: RunContext, iteration: number, e: AgentTurnEvent): void {
  if (e.type === 'agent.spawned')
    ctx.emit({
      type: 'agent.spawned',
      iteration,
      pid: e.pid,
      command: e.command,
      ...(e.sandboxed ? { sandboxed: true as const } : {}),
    });
  else if (e.type === 'agent.output')
    ctx.emit({ type: 'agent.output', iteration, stream: e.stream, text: e.text });
  else if (e.type === 'agent.event') ctx.emit({ type: 'agent.event', iteration, event: e.event });
  else ctx.emit({ type: 'agent.heartbeat', iteration, runningMs: e.runningMs, silentMs: e.silentMs });
}

/**
 * What a turn left running that Ralph killed: its group's leftovers when the agent exited on its
 * own (a timeout or a stop kills the group as part of killing the agent) and what the sweep of the
 * run's mark found. Which of the two catches a detached daemon is a race (still a descendant, or
 * already re-parented), so both are announced alike.
 */
export function leftBehind(run: AgentTurnResult): KilledProcess[] {
  return [...(run.supervised.killedBy === null ? run.supervised.killed : []), ...run.swept];
}

/** Says which processes a turn left running (and were killed), in the words of `who`. */
export function announceSwept(ctx: RunContext, who: string, killed: readonly KilledProcess[]): void {
  if (killed.length > 0)
    ctx.emit({
      type: 'notice',
      level: 'info',
      message: `${who} left ${killed.length} process(es) running; killed ${killed.map((p) => `${p.pid} (${p.command})`).join(', ')}`,
    });
}

/**
 * Kills every process still carrying the run's mark, says so, and keeps them for the iteration's
 * record. After every gate command (it ran the agent's code: its leftovers are the agent's) and
 * before every wait for a person: nothing the agent started may be alive to answer for one.
 */
export async function sweepLeftovers(ctx: RunContext, who: string): Promise<void> {
  const killed = await ctx.sweep({ runId: ctx.state.run_id }, Math.min(ctx.graceMs, 1000));
  announceSwept(ctx, who, killed);
  ctx.leftovers.push(...killed);
}

/** How a finished turn ended, judged against the run's limits (its usage already booked). */
export function judgeTurn(ctx: RunContext, run: AgentTurnResult, promiseSeen: boolean): IterationVerdict {
  const sup = run.supervised;
  return judgeIteration(
    {
      exitCode: sup.exitCode,
      signal: sup.signal,
      killedBy: sup.killedBy,
      spawnError: sup.spawnError?.message,
      resultError: run.resultError,
      promiseSeen,
    },
    ctx.limits,
    ctx.counters(),
  );
}

/**
 * What `sandbox: on` refused during a turn, read from the agent's output tails and its tools'
 * results (where a CLI reports a failed command), each matched to the rule that refused it.
 */
export function turnDenials(run: AgentTurnResult, policy: SandboxPolicy): SandboxDenialRecord[] {
  const results = run.events.flatMap((e) => (e.type === 'tool_result' ? [e.output] : []));
  const text = [run.supervised.stdoutTail, run.supervised.stderrTail, ...results].join('\n');
  return explainDenials(text, policy).map((d) => ({
    path: d.path,
    rule: d.rule.path,
    reason: d.rule.reason,
  }));
}

/** The line the run log and the console show for a turn's denials (paths from the workspace). */
export function denialsNotice(
  ctx: RunContext,
  iteration: number,
  denials: readonly SandboxDenialRecord[],
): void {
  if (denials.length === 0) return;
  const ws = ctx.options.workspace;
  const named = denials.map(
    (d) => `${d.path.startsWith(`${ws}/`) ? d.path.slice(ws.length + 1) : d.path} (${d.reason})`,
  );
  ctx.emit({
    type: 'notice',
    level: 'warn',
    message: `iteration ${iteration}: sandbox refused ${denials.length} write(s) or read(s): ${named.join(', ')}`,
  });
}
