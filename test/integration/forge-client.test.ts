import { afterEach, describe, expect, it } from 'vitest';
import { RalphError } from '../../src/errors.ts';
import { githubApiUrl, milestoneBranch, parseRemoteUrl } from '../../src/forge/forge-remote.ts';
import { openForge } from '../../src/forge/open-forge.ts';
import { type GithubServer, startGithubServer } from '../support/github-server/server.ts';

const TOKEN = 'ghp_secretToken0123456789abcdefghijklmnop';
let server: GithubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function github(): Promise<GithubServer> {
  server = await startGithubServer();
  server.state.addRepo('acme/widgets');
  server.state.addToken(TOKEN, { repos: ['acme/widgets'], push: true });
  return server;
}

const open = (s: GithubServer, env: NodeJS.ProcessEnv = {}, url = 'git@github.com:acme/widgets.git') =>
  openForge({
    remote: { name: 'origin', url },
    host: undefined,
    env: { GITHUB_API_URL: s.url, GITHUB_TOKEN: TOKEN, PATH: '/nonexistent', ...env },
    workspace: process.cwd(),
    redact: (text) => text,
  });

describe('forge remote and API base', () => {
  it('reads https, ssh and scp-like remotes; names the branch of a milestone', () => {
    expect(parseRemoteUrl('https://github.com/acme/widgets.git')).toEqual({
      host: 'github.com',
      owner: 'acme',
      repo: 'widgets',
    });
    expect(parseRemoteUrl('git@github.com:acme/widgets.git')).toEqual({
      host: 'github.com',
      owner: 'acme',
      repo: 'widgets',
    });
    expect(parseRemoteUrl('ssh://git@ghe.example.com:2222/acme/widgets')).toEqual({
      host: 'ghe.example.com',
      owner: 'acme',
      repo: 'widgets',
    });
    expect(parseRemoteUrl('/srv/git/widgets.git')).toBeNull();
    expect(githubApiUrl('github.com', {})).toBe('https://api.github.com');
    expect(githubApiUrl('ghe.example.com', {})).toBe('https://ghe.example.com/api/v3');
    expect(githubApiUrl('github.com', { GITHUB_API_URL: 'http://127.0.0.1:9/' })).toBe('http://127.0.0.1:9');
    expect(milestoneBranch('State Management (M1)')).toBe('ralph/state-management-m1');
  });
});

describe('forge client against the scripted GitHub', () => {
  it('retries 5xx answers and a secondary rate limit, then succeeds', async () => {
    const s = await github();
    s.state.faults.push(
      { method: 'GET', path: /^\/repos\/acme\/widgets$/, status: 502, body: { message: 'Bad gateway' } },
      {
        method: 'GET',
        path: /^\/repos\/acme\/widgets$/,
        status: 403,
        body: { message: 'You have exceeded a secondary rate limit' },
        headers: { 'retry-after': '0' },
      },
    );
    const forge = await open(s);
    expect(forge.defaultBranch).toBe('main');
    expect(s.requests.filter((r) => r.path === '/repos/acme/widgets')).toHaveLength(3);
  }, 20_000);

  it('fails with what to do, never the token: no token, bad credentials, no push rights, another host', async () => {
    const s = await github();
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => {
          throw new Error('expected a failure');
        },
        (e: RalphError) => e,
      );
    const none = await failure(open(s, { GITHUB_TOKEN: '', GH_TOKEN: '' }));
    expect(none.code).toBe('forge_no_token');
    expect(none.message).toContain('set GITHUB_TOKEN');
    const bad = await failure(open(s, { GITHUB_TOKEN: 'ghp_wrongToken0123456789abcdefghijklmno' }));
    expect(bad).toBeInstanceOf(RalphError);
    expect(bad.code).toBe('forge_denied');
    expect(bad.message).not.toContain('ghp_wrong');
    s.state.addToken('ghp_readOnly', { repos: ['acme/widgets'], push: false });
    const read = await failure(open(s, { GITHUB_TOKEN: 'ghp_readOnly' }));
    expect(read.message).toContain('cannot push to acme/widgets');
    const other = await failure(open(s, {}, 'https://gitlab.com/acme/widgets.git'));
    expect(other.code).toBe('forge_unsupported');
    expect(other.message).toContain('host gitlab.com');
    expect(other.message).toContain('forge.host');
    for (const e of [none, bad, read, other]) expect(e.message).not.toContain(TOKEN);
  });

  it('opens, finds, marks ready and comments on a pull request', async () => {
    const s = await github();
    const forge = await open(s);
    const pr = await forge.pulls.open({
      title: 'M1',
      body: 'b',
      head: 'ralph/m1',
      base: 'main',
      draft: true,
    });
    expect(pr).toMatchObject({ number: 1, draft: true, head: 'ralph/m1', state: 'open' });
    expect((await forge.pulls.findOpen('ralph/m1'))?.number).toBe(1);
    expect(await forge.pulls.findOpen('ralph/m2')).toBeUndefined();
    await forge.pulls.markReady(pr.nodeId);
    await forge.pulls.comment(1, 'Ready for review');
    expect(s.state.pulls[0]).toMatchObject({ draft: false, comments: ['Ready for review'] });
    expect(s.requests.every((r) => r.authorized)).toBe(true);
  });

  it('titles, bodies and comments it sends ping nobody: every @name gets an invisible break, addresses stay', async () => {
    const s = await github();
    const forge = await open(s);
    const pinged = /(^|[^\w`])@[\w]/;
    await forge.pulls.open({
      title: 'Ask @alice',
      body: '@everyone: @acme/reviewers look; mail bob@example.com',
      head: 'ralph/m1',
      base: 'main',
      draft: true,
    });
    const pr = s.state.pulls[0];
    expect(pr?.title).toBe('Ask @\u200balice');
    expect(pr?.body).toBe('@\u200beveryone: @\u200bacme/reviewers look; mail bob@example.com');
    await forge.pulls.update(1, { body: '- [x] thank @bob (#3)' });
    await forge.pulls.comment(1, 'Ready, @here');
    expect(s.state.pulls[0]?.body).toBe('- [x] thank @\u200bbob (#3)');
    expect(s.state.pulls[0]?.comments).toEqual(['Ready, @\u200bhere']);
    for (const text of [pr?.title, pr?.body, ...(pr?.comments ?? [])]) expect(text).not.toMatch(pinged);
  });
});
