import type { AgentEvent, ExitClass, ExitInfo } from '../types.ts';

/** How an agent words its failures: the patterns checked, in this order, by `classifyMessage`. */
export interface FailurePatterns {
  auth: RegExp;
  context: RegExp;
  rateLimit: RegExp;
}

/** A failure message an agent reported as an exit class: auth, then context, then rate limit, else an agent error. */
export function classifyMessage(message: string, patterns: FailurePatterns): ExitClass {
  if (patterns.auth.test(message)) return { kind: 'auth_error', message };
  if (patterns.context.test(message)) return { kind: 'context_overflow', message };
  if (patterns.rateLimit.test(message)) return { kind: 'rate_limit', message };
  return { kind: 'agent_error', message };
}

/** The last rate limit the CLI gave up on (not one it was still retrying) as an exit class. */
export function finalRateLimit(events: readonly AgentEvent[]): ExitClass | undefined {
  const limit = events.findLast((e) => e.type === 'rate_limit' && e.retrying !== true);
  if (limit?.type === 'rate_limit')
    return { kind: 'rate_limit', message: limit.message, resetAt: limit.resetAt };
  return undefined;
}

/** A run that printed a successful final result and exited 0 on its own. */
export function endedCleanly(result: AgentEvent | undefined, info: ExitInfo): boolean {
  return result?.type === 'result' && !result.isError && info.exitCode === 0 && info.signal === null;
}
