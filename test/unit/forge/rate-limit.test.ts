import { describe, expect, it } from 'vitest';
import type { RalphError } from '../../../src/errors.ts';
import { createGithubClient } from '../../../src/forge/github-client.ts';

// Issue 36: a used-up rate limit was reported as forge_denied (a token problem) — it is not one.

/** A client whose every answer is `status` with `headers` and `body`. */
function answering(status: number, headers: Record<string, string>, body: string) {
  return createGithubClient({
    apiUrl: 'https://api.github.example',
    token: 'ghp_token0123456789abcdefghijklmnopqrstu',
    redact: (t) => t,
    attempts: 1,
    fetch: async () =>
      new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } }),
  });
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined as never,
    (e: RalphError) => e,
  );

describe('GitHub rate limits', () => {
  it('a 403 with no requests remaining is forge_rate_limited, saying when it resets', async () => {
    const reset = Math.floor(Date.now() / 1000) + 30 * 60;
    const client = answering(
      403,
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      '{"message":"API rate limit exceeded for user ID 1."}',
    );
    const e = await failure(client.request('GET', '/repos/a/b'));
    expect(e.code).toBe('forge_rate_limited');
    expect(e.message).toMatch(/rate limit is used up; it resets at \d\d:\d\d UTC \(in 3[01] min\)/);
  });

  it('a 429 is one too; a plain 403 is still forge_denied', async () => {
    expect((await failure(answering(429, {}, '{}').request('GET', '/x'))).code).toBe('forge_rate_limited');
    const denied = await failure(
      answering(403, {}, '{"message":"Resource not accessible"}').request('GET', '/x'),
    );
    expect(denied.code).toBe('forge_denied');
  });
});

describe('a spent hourly quota with the run waiting for it (issue 36)', () => {
  /** A client over `answers` in turn (the last repeats), counting requests and asked waits. */
  function scripted(answers: [number, Record<string, string>][], wait: (ms: number) => boolean) {
    let n = 0;
    const waits: number[] = [];
    const slept: number[] = [];
    const client = createGithubClient({
      apiUrl: 'https://api.github.example',
      token: 'ghp_token0123456789abcdefghijklmnopqrstu',
      redact: (t) => t,
      backoffMs: 1,
      sleep: async (ms) => {
        slept.push(ms);
        return true;
      },
      fetch: async () => {
        const [status, headers] = answers[Math.min(n++, answers.length - 1)] as [
          number,
          Record<string, string>,
        ];
        return new Response(status === 200 ? '{"ok":true}' : '{"message":"API rate limit exceeded"}', {
          status,
          headers: { 'content-type': 'application/json', ...headers },
        });
      },
      waitForReset: async (ms) => {
        waits.push(ms);
        return wait(ms);
      },
    });
    return { client, waits, slept, requests: () => n };
  }
  const spent = (inSeconds: number): [number, Record<string, string>] => [
    403,
    {
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + inSeconds),
    },
  ];

  it('hands the wait to the run (no in-client retry), then sends the same request again', async () => {
    const s = scripted([spent(40 * 60), [200, {}]], () => true);
    expect(await s.client.request('GET', '/repos/a/b')).toEqual({ ok: true });
    expect(s.requests()).toBe(2);
    expect(s.slept).toEqual([]); // not capped at a minute and retried: the run waited
    expect(s.waits).toHaveLength(1);
    expect(s.waits[0]).toBeGreaterThan(39 * 60_000);
  });

  it('fails with forge_rate_limited when the run will not wait; a secondary limit is still retried in the client', async () => {
    const refused = scripted([spent(60)], () => false);
    const e = await failure(refused.client.request('GET', '/x'));
    expect(e.code).toBe('forge_rate_limited');
    expect(refused.requests()).toBe(1);
    const secondary = scripted(
      [
        [403, { 'retry-after': '2' }],
        [200, {}],
      ],
      () => true,
    );
    expect(await secondary.client.request('GET', '/x')).toEqual({ ok: true });
    expect(secondary.waits).toEqual([]);
    expect(secondary.slept).toEqual([2000]);
  });
});
