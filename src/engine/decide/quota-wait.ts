/**
 * A spent GitHub hourly quota (issue 36): the run waits for its reset as it waits for an agent's
 * rate limit — parked, the same request tried again after — unless the reset comes after the run's
 * `max_runtime` ends, when waiting could only end in `max_runtime` with the work undone.
 */
export type QuotaWait =
  /** Park until `until` (epoch ms): the reset, and a second's slack for clocks apart. */
  | { kind: 'park'; until: number }
  /** The reset (epoch ms) is past the run's deadline (epoch ms): stop, saying when it resets. */
  | { kind: 'stop'; resetAt: number; deadline: number };

/** The slack after GitHub's reset second before the request goes again. */
export const QUOTA_SLACK_MS = 1000;

/** Whether to wait for a quota that resets `resetMs` from `now`, with `runtimeLeftMs` of the run left (pure). */
export function quotaWait(now: number, resetMs: number, runtimeLeftMs: number): QuotaWait {
  const until = now + Math.max(0, resetMs) + QUOTA_SLACK_MS;
  const deadline = now + runtimeLeftMs;
  return until <= deadline
    ? { kind: 'park', until }
    : { kind: 'stop', resetAt: now + Math.max(0, resetMs), deadline };
}
