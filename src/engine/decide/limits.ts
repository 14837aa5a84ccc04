import { ExitCode, type ExitCodeValue } from '../../errors.ts';
import type { StopReason } from '../../observe/events.ts';

/** The loop limits of `event_loop` (undefined = unlimited). */
export interface Limits {
  maxIterations: number;
  maxRuntimeMs: number | undefined;
  maxCostUsd: number | undefined;
  maxTokens: number | undefined;
  maxConsecutiveFailures: number;
}

/** Counters carried across iterations and across `--resume`. */
export interface Counters {
  iterations: number;
  elapsedMs: number;
  costUsd: number;
  tokens: number;
  consecutiveFailures: number;
}

export interface Stop {
  reason: StopReason;
  message: string;
  exitCode: ExitCodeValue;
}

export const EXIT_FOR_REASON: Record<StopReason, ExitCodeValue> = {
  completed: ExitCode.ok,
  cancelled: ExitCode.ok,
  metric_target: ExitCode.ok,
  max_iterations: ExitCode.limit,
  max_runtime: ExitCode.limit,
  max_cost: ExitCode.limit,
  max_tokens: ExitCode.limit,
  metric_patience: ExitCode.limit,
  consecutive_failures: ExitCode.failure,
  stale_loop: ExitCode.failure,
  no_events: ExitCode.failure,
  malformed_events: ExitCode.failure,
  iteration_timeout: ExitCode.failure,
  validation_failed: ExitCode.failure,
  push_failed: ExitCode.failure,
  health_check: ExitCode.failure,
  dirty_tree: ExitCode.failure,
  stuck: ExitCode.failure,
  auth_error: ExitCode.failure,
  tdd_state: ExitCode.failure,
  human_timeout: ExitCode.failure,
  no_progress: ExitCode.failure,
  gate_tampered: ExitCode.failure,
  review_unresolved: ExitCode.failure,
  pr_closed: ExitCode.failure,
  hook_blocked: ExitCode.failure,
  error: ExitCode.failure,
  interrupted: ExitCode.interrupted,
};

export function stop(reason: StopReason, message: string): Stop {
  return { reason, message, exitCode: EXIT_FOR_REASON[reason] };
}

/** The stop for Ctrl-C, SIGTERM and SIGHUP (the loop's abort signal). */
export function interruptedStop(): Stop {
  return stop('interrupted', 'interrupted (Ctrl-C, SIGTERM or SIGHUP); resume with `ralph run --resume`');
}

/** The stop for one resource limit, with a message naming the configured value. */
export function limitStop(
  reason: 'max_iterations' | 'max_runtime' | 'max_cost' | 'max_tokens',
  c: Counters,
  l: Limits,
): Stop {
  switch (reason) {
    case 'max_iterations':
      return stop(reason, `reached max_iterations (${l.maxIterations})`);
    case 'max_runtime':
      return stop(reason, `reached max_runtime_seconds (${(l.maxRuntimeMs ?? 0) / 1000})`);
    case 'max_cost':
      return stop(reason, `reached max_cost_usd ($${l.maxCostUsd}; spent $${c.costUsd.toFixed(4)})`);
    case 'max_tokens':
      return stop(reason, `reached max_tokens (${l.maxTokens}; used ${c.tokens})`);
  }
}

/**
 * The command that continues a run after this stop (pure), or undefined when there is nothing to
 * continue. A limit is doubled: `--resume` keeps the run's counters, so the new limit is a total.
 */
export function nextStep(reason: StopReason, l: Limits): string | undefined {
  const resume = 'ralph run --resume';
  switch (reason) {
    case 'completed':
    case 'cancelled':
      return undefined;
    case 'max_iterations':
      return `${resume} --max-iterations ${l.maxIterations * 2}`;
    case 'max_runtime':
      return `${resume} --max-runtime ${((l.maxRuntimeMs ?? 0) / 1000) * 2}`;
    case 'max_cost':
      return `${resume} --max-cost ${(l.maxCostUsd ?? 0) * 2}`;
    case 'max_tokens':
      return `${resume} --set event_loop.max_tokens=${(l.maxTokens ?? 0) * 2}`;
    case 'interrupted':
      return resume;
    case 'human_timeout':
      return `answer it (\`ralph status\` lists what waits), then \`${resume}\``;
    case 'pr_closed':
      return `reopen and merge the pull request, or check its milestone's boxes again, then \`${resume}\``;
    case 'auth_error':
      return `log the agent CLI in (\`ralph doctor\` says how), then \`${resume}\``;
    default:
      return `fix what the message above names, then \`${resume}\` (or \`ralph run --fresh\` to start over)`;
  }
}

/** Which limit, if any, forbids starting another iteration (pure). */
export function limitReached(c: Counters, l: Limits): Stop | undefined {
  if (c.consecutiveFailures >= l.maxConsecutiveFailures)
    return stop(
      'consecutive_failures',
      `${c.consecutiveFailures} consecutive failed iterations (max_consecutive_failures: ${l.maxConsecutiveFailures})`,
    );
  if (c.iterations >= l.maxIterations) return limitStop('max_iterations', c, l);
  if (l.maxRuntimeMs !== undefined && c.elapsedMs >= l.maxRuntimeMs) return limitStop('max_runtime', c, l);
  if (l.maxCostUsd !== undefined && c.costUsd >= l.maxCostUsd) return limitStop('max_cost', c, l);
  if (l.maxTokens !== undefined && c.tokens >= l.maxTokens) return limitStop('max_tokens', c, l);
  return undefined;
}

/** How one agent run ended, as the loop sees it. */
export interface AgentOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Why Ralph killed the agent, or null when it ended by itself. */
  killedBy: string | null;
  spawnError: string | undefined;
  /** The agent reported an error result (e.g. stream-json `is_error`). */
  resultError: boolean;
  promiseSeen: boolean;
}

export type IterationVerdict =
  | { kind: 'complete' }
  | { kind: 'success' }
  | { kind: 'failure'; why: string }
  /** The iteration did not finish and must be re-run on resume (Ctrl-C, `ralph stop --now`). */
  | { kind: 'aborted'; stop: Stop }
  /** A limit killed the agent mid-iteration: the iteration counts, the loop stops. */
  | { kind: 'limit'; stop: Stop }
  /** A rate or usage limit (or a transient API error): wait until `until`, then re-run the same iteration. */
  | { kind: 'parked'; until: number; message: string; transient: boolean };

const LIMIT_KILLS = new Set(['max_runtime', 'max_cost', 'max_tokens'] as const);
type LimitKill = 'max_runtime' | 'max_cost' | 'max_tokens';

/** Classifies a finished agent run; `counters` already include this iteration's usage (pure). */
export function judgeIteration(o: AgentOutcome, limits: Limits, counters: Counters): IterationVerdict {
  if (o.killedBy === 'interrupted') return { kind: 'aborted', stop: interruptedStop() };
  if (o.killedBy === 'stop_requested')
    return { kind: 'aborted', stop: stop('cancelled', 'stopped by `ralph stop --now`') };
  if (o.killedBy && LIMIT_KILLS.has(o.killedBy as LimitKill)) {
    return { kind: 'limit', stop: limitStop(o.killedBy as LimitKill, counters, limits) };
  }
  if (o.spawnError) return { kind: 'failure', why: `agent could not start: ${o.spawnError}` };
  if (o.killedBy === 'iteration_timeout')
    return { kind: 'failure', why: 'iteration timeout: the agent was killed' };
  if (o.killedBy === 'idle_timeout')
    return { kind: 'failure', why: 'idle timeout: no agent output, the agent was killed' };
  if (o.killedBy) return { kind: 'failure', why: `agent killed (${o.killedBy})` };
  if (o.signal) return { kind: 'failure', why: `agent died from ${o.signal}` };
  if (o.exitCode !== 0) return { kind: 'failure', why: `agent exited with code ${o.exitCode}` };
  if (o.resultError) return { kind: 'failure', why: 'agent reported an error result' };
  return o.promiseSeen ? { kind: 'complete' } : { kind: 'success' };
}

/** Transient API trouble worth a retry after a pause (never counted as a failure). */
export const MAX_TRANSIENT_RETRIES = 3;

function looksTransient(message: string): boolean {
  return /\b(5\d\d|overloaded|temporar\w*|unavailable|ECONN\w+|ETIMEDOUT|EAI_AGAIN|socket hang up|network)\b/i.test(
    message,
  );
}

/**
 * Reads a backend's exit classification (pure): a rate/usage limit parks until its reset time
 * (or a growing pause when none is given); a transient API error parks briefly, a few times; an
 * auth error stops the loop. Anything else keeps the verdict it had.
 */
export function verdictFromExitClass(
  verdict: IterationVerdict,
  cls: ExitClassLike | undefined,
  now: number,
  parks: { rateLimit: number; transient: number },
): IterationVerdict {
  if (verdict.kind !== 'failure' || !cls) return verdict;
  if (cls.kind === 'rate_limit') {
    const pause = Math.min(60_000 * 2 ** parks.rateLimit, 15 * 60_000);
    const until = cls.resetAt !== undefined && cls.resetAt > now ? cls.resetAt : now + pause;
    return { kind: 'parked', until, message: cls.message, transient: false };
  }
  if (cls.kind === 'auth_error') {
    return {
      kind: 'aborted',
      stop: stop(
        'auth_error',
        `the agent could not authenticate: ${cls.message}; check its credentials (\`ralph doctor\`), then \`ralph run --resume\``,
      ),
    };
  }
  if (cls.kind === 'agent_error' && looksTransient(cls.message) && parks.transient < MAX_TRANSIENT_RETRIES) {
    return {
      kind: 'parked',
      until: now + 15_000 * 2 ** parks.transient,
      message: cls.message,
      transient: true,
    };
  }
  return verdict;
}

/** The part of a backend's ExitClass the engine acts on. */
export type ExitClassLike =
  | { kind: 'rate_limit'; message: string; resetAt?: number | undefined }
  | { kind: 'auth_error'; message: string }
  | { kind: 'agent_error'; message: string }
  | { kind: 'success' | 'context_overflow' | 'killed'; message?: string };
