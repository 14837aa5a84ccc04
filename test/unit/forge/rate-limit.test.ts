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
