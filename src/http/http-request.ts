import { setTimeout as delay } from 'node:timers/promises';
import { trace, traceableUrl, tracing } from '../process/debug-trace.ts';
import { askedWaitMs, classifyStatus, HttpFailure, retryPause, thrownFailure } from './http-failure.ts';

/** One request: the client builds its URL, headers and body (and redacts what it sends). */
export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** What the debug trace shows for the URL when its path holds a credential (Telegram's token). */
  traceUrl?: string;
}

/** A success: its status, headers and body (bounded). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** When to try again: a pause per retry (its length is the number of retries), and a cap on asked waits. */
export interface RetryPolicy {
  delaysMs: readonly number[];
  /** A `retry-after` or rate-limit reset longer than this is waited only this long. */
  maxWaitMs: number;
  /** A retryable failure this says no to is thrown at once: its caller waits it out its own way. */
  retryIf?: (failure: HttpFailure) => boolean;
}

/** How a request is made; every effect can be replaced in tests. */
export interface HttpOptions {
  /** Per attempt, the body read included. */
  timeoutMs: number;
  /** The body is cut here (an error page must not fill memory or a log); default 1 MiB. */
  maxBodyBytes?: number;
  /** Default: no retry. */
  retry?: RetryPolicy;
  /** The caller's cancel: ends the request and any wait between tries. */
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Sleeps `ms`, or less when `signal` aborts; true when it slept the whole time. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
  now?: () => number;
  /** A wait a failed answer asks for in its body (Telegram's `parameters.retry_after`), in ms. */
  bodyWaitMs?: (answer: HttpAnswer) => number | undefined;
}

const MAX_BODY = 1024 * 1024;

async function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Reads at most `max` bytes of the body, then lets the rest go. */
async function readBounded(res: Response, max: number): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= max) {
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max));
}

/** One try, in the debug trace when it is on: method, URL without its credentials, outcome, time. */
async function attempt(req: HttpRequest, o: HttpOptions): Promise<HttpAnswer | HttpFailure> {
  if (!tracing()) return attemptOnce(req, o);
  const started = Date.now();
  const got = await attemptOnce(req, o);
  trace({
    kind: 'http',
    method: req.method,
    url: traceableUrl(req.traceUrl ?? req.url),
    status: got instanceof HttpFailure ? got.kind : got.status,
    durationMs: Date.now() - started,
  });
  return got;
}

/** One try: the answer, or the failure a thrown fetch or body read is. */
async function attemptOnce(req: HttpRequest, o: HttpOptions): Promise<HttpAnswer | HttpFailure> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  try {
    const res = await (o.fetch ?? fetch)(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal,
    });
    return {
      status: res.status,
      headers: res.headers,
      text: await readBounded(res, o.maxBodyBytes ?? MAX_BODY),
    };
  } catch (error) {
    return thrownFailure(error, o.signal, timeout);
  }
}

/**
 * The one door to outside HTTP services (GitHub, Telegram, webhooks): fetch with a timeout and a
 * bounded body, then, by `retry`, another try after a network error, a timeout, a rate limit or a
 * 5xx — after the wait the service asks for (`retry-after`, a rate-limit reset; capped), else the
 * policy's pause. Resolves to a 2xx answer; throws an {@link HttpFailure} (classified) otherwise.
 */
export async function httpRequest(req: HttpRequest, o: HttpOptions): Promise<HttpAnswer> {
  const delays = o.retry?.delaysMs ?? [];
  const sleep = o.sleep ?? pause;
  const now = o.now ?? Date.now;
  for (let retry = 0; ; retry++) {
    const got = await attempt(req, o);
    let failure: HttpFailure;
    if (got instanceof HttpFailure) failure = got;
    else {
      const kind = classifyStatus(got.status, got.headers, got.text);
      if (kind === undefined) return got;
      const asked = o.bodyWaitMs?.(got) ?? askedWaitMs(got.headers, now(), kind === 'rate_limited');
      failure = new HttpFailure(kind, `HTTP ${got.status}`, { ...got, retryAfterMs: asked });
    }
    if (!failure.retryable || retry >= delays.length || o.signal?.aborted) throw failure;
    if (o.retry?.retryIf && !o.retry.retryIf(failure)) throw failure;
    const wait = retryPause(delays, retry, failure.retryAfterMs, o.retry?.maxWaitMs ?? 0);
    if (!(await sleep(wait, o.signal))) throw failure;
  }
}
