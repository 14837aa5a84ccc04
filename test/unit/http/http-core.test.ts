import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  askedWaitMs,
  classifyStatus,
  HttpFailure,
  retryAfterMs,
  retryPause,
} from '../../../src/http/http-failure.ts';
import { type HttpOptions, httpRequest } from '../../../src/http/http-request.ts';
import { createBotApi } from '../../../src/human/telegram/bot-api.ts';
import { type DebugEvent, setDebugSink } from '../../../src/process/debug-trace.ts';

/** A loopback server answering each request with the next handler of its script (the last one repeats). */
async function serve(...script: ((req: IncomingMessage, res: ServerResponse) => void)[]) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    (script[Math.min(seen.length - 1, script.length - 1)] as (typeof script)[number])(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, seen };
}
const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const answer =
  (status: number, headers: Record<string, string> = {}, body = '') =>
  (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(status, headers).end(body);

/** Options whose waits are recorded instead of slept, at a fixed clock. */
function recorded(o: Partial<HttpOptions> = {}) {
  const waits: number[] = [];
  const options: HttpOptions = {
    timeoutMs: 5000,
    retry: { delaysMs: [100, 200, 400], maxWaitMs: 60_000 },
    sleep: async (ms) => {
      waits.push(ms);
      return true;
    },
    now: () => NOW,
    ...o,
  };
  return { waits, options };
}
const NOW = Date.parse('2026-01-02T03:04:05Z');

async function failure(p: Promise<unknown>): Promise<HttpFailure> {
  const e = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(HttpFailure);
  return e as HttpFailure;
}

describe('the HTTP core against a loopback server', () => {
  it('retries a 5xx after the policy pause, and a retry-after in seconds instead of it', async () => {
    const s = await serve(answer(502), answer(503, { 'retry-after': '7' }), answer(200, {}, '{"ok":1}'));
    const { waits, options } = recorded();
    const got = await httpRequest({ method: 'GET', url: s.url }, options);
    expect(got).toMatchObject({ status: 200, text: '{"ok":1}' });
    expect(s.seen).toHaveLength(3);
    expect(waits).toEqual([100, 7000]);
  });

  it('honours retry-after as an HTTP date, and a rate-limit reset, each capped', async () => {
    const date = new Date(NOW + 9000).toUTCString();
    const reset = String(Math.floor(NOW / 1000) + 3600);
    const s = await serve(
      answer(429, { 'retry-after': date }),
      answer(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }),
      answer(204),
    );
    const { waits, options } = recorded({ retry: { delaysMs: [1, 1, 1], maxWaitMs: 60_000 } });
    expect((await httpRequest({ method: 'POST', url: s.url, body: '{}' }, options)).status).toBe(204);
    expect(waits).toEqual([9000, 60_000]);
  });

  it('a 5xx with a rate-limit reset waits the pause, not the reset', async () => {
    const reset = String(Math.floor(NOW / 1000) + 30);
    const s = await serve(answer(500, { 'x-ratelimit-reset': reset }), answer(200));
    const { waits, options } = recorded();
    await httpRequest({ method: 'GET', url: s.url }, options);
    expect(waits).toEqual([100]);
  });

  it('gives up after the last retry with the last failure: kind, status, headers and body', async () => {
    const s = await serve(answer(502, { 'x-id': 'a' }, 'bad gateway'));
    const { waits, options } = recorded();
    const e = await failure(httpRequest({ method: 'GET', url: s.url }, options));
    expect(e).toMatchObject({ kind: 'server', status: 502, text: 'bad gateway', message: 'HTTP 502' });
    expect(e.headers?.get('x-id')).toBe('a');
    expect(s.seen).toHaveLength(4);
    expect(waits).toEqual([100, 200, 400]);
  });

  it('classifies what will not get better and does not retry it', async () => {
    const cases: [number, string, string][] = [
      [401, 'auth', ''],
      [403, 'auth', '{"message":"Resource not accessible"}'],
      [404, 'not_found', ''],
      [400, 'client', ''],
      [422, 'client', ''],
    ];
    for (const [status, kind, body] of cases) {
      const s = await serve(answer(status, {}, body));
      const { waits, options } = recorded();
      const e = await failure(httpRequest({ method: 'GET', url: s.url }, options));
      expect(e.kind, String(status)).toBe(kind);
      expect(e.retryable).toBe(false);
      expect(s.seen).toHaveLength(1);
      expect(waits).toEqual([]);
    }
  });

  it("a 403 that says it is GitHub's secondary rate limit is retried", async () => {
    const s = await serve(
      answer(403, {}, '{"message":"You have exceeded a secondary rate limit"}'),
      answer(200),
    );
    const { waits, options } = recorded();
    await httpRequest({ method: 'GET', url: s.url }, options);
    expect(waits).toEqual([100]);
  });

  it('cuts a long body at maxBodyBytes', async () => {
    const s = await serve(answer(200, {}, 'x'.repeat(3 * 1024 * 1024)));
    const got = await httpRequest({ method: 'GET', url: s.url }, { timeoutMs: 5000, maxBodyBytes: 1000 });
    expect(got.text).toBe('x'.repeat(1000));
  });

  it('times out a server that never answers, each try, then says so without the URL', async () => {
    const s = await serve(() => {});
    // Tries counted as they start (a loaded machine may time one out before the server sees it).
    let tries = 0;
    const counting: typeof fetch = (url, init) => {
      tries++;
      return fetch(url, init);
    };
    const { waits, options } = recorded({
      timeoutMs: 100,
      retry: { delaysMs: [5], maxWaitMs: 0 },
      fetch: counting,
    });
    const e = await failure(httpRequest({ method: 'GET', url: `${s.url}?token=secret` }, options));
    expect(e).toMatchObject({ kind: 'timeout', message: 'timed out', status: undefined });
    expect(e.message).not.toContain('secret');
    expect(tries).toBe(2);
    expect(waits).toEqual([5]);
  });

  it('times out a body that stops half-way', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200);
      res.write('part');
    });
    const e = await failure(httpRequest({ method: 'GET', url: s.url }, { timeoutMs: 150 }));
    expect(e.kind).toBe('timeout');
  });

  it('a refused connection is a network failure, retried', async () => {
    const s = await serve(answer(200));
    const url = s.url;
    for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
    const { waits, options } = recorded({ retry: { delaysMs: [3], maxWaitMs: 0 } });
    const e = await failure(httpRequest({ method: 'GET', url }, options));
    expect(e.kind).toBe('network');
    expect(e.message).toBe('fetch failed');
    expect(waits).toEqual([3]);
  });

  it("the caller's abort ends a wait between tries, and a request before it starts", async () => {
    const s = await serve(answer(503));
    const stop = new AbortController();
    const e = await failure(
      httpRequest(
        { method: 'GET', url: s.url },
        {
          timeoutMs: 5000,
          retry: { delaysMs: [60_000], maxWaitMs: 0 },
          signal: stop.signal,
          sleep: async () => {
            stop.abort();
            return false;
          },
        },
      ),
    );
    expect(e.kind).toBe('server');
    const aborted = await failure(
      httpRequest({ method: 'GET', url: s.url }, { timeoutMs: 5000, signal: stop.signal }),
    );
    expect(aborted.kind).toBe('aborted');
  });

  it('takes a wait the body asks for (Telegram says retry_after in its JSON)', async () => {
    const s = await serve(answer(429, {}, '{"parameters":{"retry_after":4}}'), answer(200));
    const { waits, options } = recorded({
      bodyWaitMs: (a) =>
        (JSON.parse(a.text) as { parameters: { retry_after: number } }).parameters.retry_after * 1000,
    });
    await httpRequest({ method: 'GET', url: s.url }, options);
    expect(waits).toEqual([4000]);
  });
});

describe('retry waits and classification (properties)', () => {
  it('retry-after in whole seconds or as an HTTP date is that many ms from now; anything else is unsaid', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400 }), fc.integer({ min: 0, max: 2e12 }), (s, now) => {
        expect(retryAfterMs(String(s), now)).toBe(s * 1000);
        const at = Math.floor(now / 1000) * 1000 + s * 1000;
        expect(retryAfterMs(new Date(at).toUTCString(), now)).toBe(Math.max(0, at - now));
      }),
    );
    for (const junk of ['', ' ', '-1', 'soon', '1e3', 'Someday 99'])
      expect(retryAfterMs(junk, NOW)).toBeUndefined();
    expect(retryAfterMs(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
  });

  it('a pause is the asked wait capped, else the policy delay; never negative', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 5 }),
        fc.nat(10),
        fc.option(fc.integer({ min: 0, max: 1e9 }), { nil: undefined }),
        fc.integer({ min: 0, max: 1e6 }),
        (delays, retry, asked, cap) => {
          const p = retryPause(delays, retry, asked, cap);
          expect(p).toBeGreaterThanOrEqual(0);
          if (asked !== undefined) expect(p).toBe(Math.min(asked, cap));
          else expect(p).toBe(delays[Math.min(retry, delays.length - 1)]);
        },
      ),
    );
  });

  it('only a rate limit waits for x-ratelimit-reset; every status has one kind, 2xx none', () => {
    const h = new Headers({ 'x-ratelimit-reset': String(NOW / 1000 + 10) });
    expect(askedWaitMs(h, NOW, true)).toBe(10_000);
    expect(askedWaitMs(h, NOW, false)).toBeUndefined();
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), fc.string(), (status, text) => {
        const kind = classifyStatus(status, new Headers(), text);
        if (status >= 200 && status < 300) expect(kind).toBeUndefined();
        else expect(['rate_limited', 'auth', 'not_found', 'server', 'client']).toContain(kind);
        if (status >= 500) expect(kind).toBe('server');
      }),
    );
  });
});

describe('the debug trace of the HTTP core (issue 36)', () => {
  afterEach(() => {
    setDebugSink(undefined);
  });

  it('records each try: method, URL without query or fragment, status, time', async () => {
    const { url } = await serve(answer(503), answer(200, {}, 'ok'));
    const seen: DebugEvent[] = [];
    setDebugSink((e) => seen.push(e));
    const withSecrets = `${url}?access_token=abc123secret#frag`;
    await httpRequest(
      { method: 'GET', url: withSecrets },
      recorded({ retry: { delaysMs: [1], maxWaitMs: 0 } }).options,
    );
    expect(seen.map((e) => (e.kind === 'http' ? `${e.method} ${e.url} ${e.status}` : e.kind))).toEqual([
      `GET ${url} 503`,
      `GET ${url} 200`,
    ]);
    expect(JSON.stringify(seen)).not.toMatch(/abc123secret|frag/);
  });

  it("shows a client's traceUrl instead when the path holds a credential (Telegram's token)", async () => {
    const seen: DebugEvent[] = [];
    setDebugSink((e) => seen.push(e));
    const api = createBotApi({
      apiUrl: 'https://api.telegram.org',
      token: '123456789:AAFakeTokenFakeTokenFakeTokenFake00',
      fetchImpl: async () => new Response('{"ok":true,"result":[]}', { status: 200 }),
    });
    await api.call('getUpdates', {});
    expect(seen).toMatchObject([
      { kind: 'http', url: 'https://api.telegram.org/bot[redacted]/getUpdates', status: 200 },
    ]);
    expect(JSON.stringify(seen)).not.toContain('AAFakeToken');
  });
});
