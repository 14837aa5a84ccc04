/**
 * Why a request to an outside service failed, in the words its callers decide on: worth another
 * try (`network`, `timeout`, `rate_limited`, `server`) or not (`auth`, `not_found`, `client`, and
 * `aborted`, the caller's own cancel).
 */
export type HttpFailureKind =
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'rate_limited'
  | 'auth'
  | 'not_found'
  | 'server'
  | 'client';

const RETRYABLE: ReadonlySet<HttpFailureKind> = new Set(['network', 'timeout', 'rate_limited', 'server']);

/**
 * A failed request. Its message never holds the URL or a header (a URL may carry a token, as
 * Telegram's does): `HTTP 502`, `timed out`, or the network error's own message.
 */
export class HttpFailure extends Error {
  readonly kind: HttpFailureKind;
  /** The answer's status, or undefined when no answer came (network, timeout, aborted). */
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  /** The answer's body, bounded ('' when none came). */
  readonly text: string;
  /** How long the service asked to wait before another try (ms), when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(
    kind: HttpFailureKind,
    message: string,
    o: { status?: number; headers?: Headers; text?: string; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
    this.name = 'HttpFailure';
    this.kind = kind;
    this.status = o.status;
    this.headers = o.headers;
    this.text = o.text ?? '';
    this.retryAfterMs = o.retryAfterMs;
  }

  /** A network error, a timeout, a rate limit or a 5xx may go away; the rest will not. */
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/**
 * The failure kind of an answer, or undefined for a success (2xx). A 403 is a rate limit when it
 * says so (GitHub's secondary limit: retry-after, no requests remaining, or its message).
 */
export function classifyStatus(status: number, headers: Headers, text: string): HttpFailureKind | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status === 429) return 'rate_limited';
  if (
    status === 403 &&
    (headers.get('retry-after') !== null ||
      headers.get('x-ratelimit-remaining') === '0' ||
      /secondary rate limit|rate limit exceeded/i.test(text))
  )
    return 'rate_limited';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'server';
  return 'client';
}

/**
 * A thrown fetch (or body read) as a failure: the caller's abort, the request's own timeout, or a
 * network error (its message kept; the cause is the original error).
 */
export function thrownFailure(
  error: unknown,
  caller: AbortSignal | undefined,
  timeout: AbortSignal,
): HttpFailure {
  if (caller?.aborted) return new HttpFailure('aborted', 'aborted', { cause: error });
  const e = error as Error;
  if (timeout.aborted || e?.name === 'TimeoutError')
    return new HttpFailure('timeout', 'timed out', { cause: error });
  return new HttpFailure('network', e?.message ?? String(error), { cause: error });
}

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
