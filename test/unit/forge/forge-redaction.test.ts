import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RalphError } from '../../../src/errors.ts';
import { createGithubClient } from '../../../src/forge/github-client.ts';
import { createRedactor } from '../../../src/observe/redact.ts';

// The GitHub client is the one door for text Ralph sends to the forge: every string of a request's
// body goes out through the run's redaction, and a path holding a secret is never requested.

const SECRET = 'acme-Zq8vR2pL9xW4tY7u-unit';
const redact = createRedactor({ ACME_CLOUD_API_KEY: SECRET });

/** A client whose fetch records what it would send and answers `{}`. */
function recording() {
  const sent: { url: string; body: string | undefined }[] = [];
  const client = createGithubClient({
    apiUrl: 'https://api.github.example',
    token: 'ghp_token0123456789abcdefghijklmnopqrstu',
    redact,
    attempts: 1,
    fetch: async (url, init) => {
      sent.push({ url: String(url), body: init?.body as string | undefined });
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, sent };
}

describe('the forge client redacts what it sends', () => {
  it('every string of a body, at any depth, and in GraphQL variables', async () => {
    const { client, sent } = recording();
    await client.request('POST', '/repos/a/b/pulls', {
      title: `Foundation ${SECRET}`,
      head: `ralph/x-${SECRET}`,
      nested: { list: [`body ${SECRET} end`, 3, true, null] },
    });
    await client.graphql('mutation { x }', { id: `id-${SECRET}` });
    expect(sent).toHaveLength(2);
    expect(sent.map((s) => s.body).join('\n')).not.toContain(SECRET);
    expect(JSON.parse(sent[0]?.body ?? '{}')).toEqual({
      title: 'Foundation [redacted]',
      head: 'ralph/x-[redacted]',
      nested: { list: ['body [redacted] end', 3, true, null] },
    });
  });

  it('any text around a secret: the sent body never holds it, and stays valid JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (before, after) => {
        const { client, sent } = recording();
        await client.request('PATCH', '/repos/a/b/pulls/1', { body: `${before}${SECRET}${after}` });
        const body = sent[0]?.body ?? '';
        expect(body).not.toContain(SECRET);
        expect((JSON.parse(body) as { body: string }).body).toContain('[redacted]');
      }),
      { numRuns: 50 },
    );
  });

  it('a path holding a secret, even %-escaped, is never requested', async () => {
    const { client, sent } = recording();
    const path = `/repos/a/b/pulls?head=${encodeURIComponent(`a:feat-${SECRET}`)}`;
    const error = await client.request('GET', path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).code).toBe('forge_secret');
    expect((error as Error).message).not.toContain(SECRET);
    expect(sent).toEqual([]);
  });
});
