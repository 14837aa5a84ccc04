/**
 * How long a service asks a client to wait before trying again (ms), or undefined when it does not
 * say: `retry-after` in seconds or as an HTTP date; for a rate limit, also the time
 * `x-ratelimit-reset` names (epoch seconds). A time already past is 0.
 */
export function askedWaitMs(headers: Headers, now: number, rateLimited: boolean): number | undefined {
  const after = retryAfterMs(headers.get('retry-after'), now);
  if (after !== undefined) return after;
  if (!rateLimited) return undefined;
  const reset = Number(headers.get('x-ratelimit-reset'));
  return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now) : undefined;
}

/** A `retry-after` value as milliseconds from `now`: whole seconds, or an HTTP date. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  // An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`): a time of day in it, or Date.parse guesses.
  if (!/[a-z]/i.test(text) || !/\d{1,2}:\d{2}:\d{2}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/**
 * The pause before retry number `retry` (0 for the first): the service's asked wait, capped at
 * `maxWaitMs`, else the policy's delay for that retry.
 */
export function retryPause(
  delaysMs: readonly number[],
  retry: number,
  asked: number | undefined,
  maxWaitMs: number,
): number {
  if (asked !== undefined) return Math.min(asked, maxWaitMs);
  return Math.max(0, delaysMs[retry] ?? delaysMs.at(-1) ?? 0);
}
