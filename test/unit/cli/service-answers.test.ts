import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unexpectedErrorLine } from '../../../src/cli/cli-program.ts';
import { linkToNowhere, notJsonAnswer, whyUnreadable } from '../../../src/errors.ts';
import { createGithubClient } from '../../../src/forge/github-client.ts';
import { createBotApi } from '../../../src/human/telegram/bot-api.ts';

// What outside services answer instead of JSON, links to nowhere and bugs: one line each, never
// a SyntaxError, a stack frame or a token.

const TOKEN = 'ghp_secretToken0123456789abcdefghijklmnop';
const HTML = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>…</body></html>';

/** A fetch that answers every request with this status, content type and body. */
const answering =
  (status: number, type: string, body: string): typeof fetch =>
  async () =>
    new Response(status === 204 ? null : body, { status, headers: { 'content-type': type } });

const github = (f: typeof fetch) =>
  createGithubClient({
    apiUrl: 'https://github.example.com',
    token: TOKEN,
    redact: (t) => t,
    fetch: f,
    attempts: 1,
  });

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    expect(error).not.toBeInstanceOf(SyntaxError);
    expect(error).not.toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

describe('the GitHub client', () => {
  it('a 200 with an HTML page: the URL, status, content type, first bytes and GITHUB_API_URL', async () => {
    const said = await failure(
      github(answering(200, 'text/html; charset=utf-8', HTML)).request('GET', '/repos/a/b'),
    );
    expect(said).toBe(
      'GitHub API GET https://github.example.com/repos/a/b answered HTTP 200 (text/html; charset=utf-8) with a body starting "<!DOCTYPE html> <html><head><title>Sign in</title></head><body>…</body></html>", not JSON: check GITHUB_API_URL: it must be the API (https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise), not the web root, and that no proxy answers in its place',
    );
  });

  it('an empty 200 to a GET, and a list page that is not a list, are errors; a 204 is no content', async () => {
    expect(await failure(github(answering(200, 'application/json', '')).request('GET', '/x'))).toMatch(
      /an empty body, not JSON/,
    );
    expect(await failure(github(answering(200, 'application/json', '{"a":1}')).list('/x', 10))).toMatch(
      /GET \/x answered object, not a list .*GITHUB_API_URL/,
    );
    expect(await github(answering(204, 'application/json', '')).request('PUT', '/x')).toBeUndefined();
  });

  it('never echoes the token a body holds', async () => {
    expect(
      await failure(github(answering(200, 'text/plain', `token ${TOKEN}`)).request('GET', '/x')),
    ).not.toContain(TOKEN);
  });
});

describe('the Telegram Bot API client', () => {
  it('a 200 that is not JSON names the host and api_url, never the token in the URL', async () => {
    const api = createBotApi({
      apiUrl: 'https://proxy.example',
      token: '123:ABC',
      fetchImpl: answering(200, 'text/html', HTML),
    });
    const said = await failure(api.call('getMe', {}));
    expect(said).toMatch(
      /^Telegram getMe at proxy\.example answered HTTP 200 \(text\/html\) with a body starting "<!DOCTYPE html>/,
    );
    expect(said).toContain('RObot.telegram.api_url');
    expect(said).not.toContain('123:ABC');
  });
});

describe('one line for what is not JSON, a link to nowhere and a bug', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cuts the body at 80 characters and says when it is empty', () => {
    expect(notJsonAnswer('X', 502, null, 'a'.repeat(100))).toBe(
      `X answered HTTP 502 (no content type) with a body starting "${'a'.repeat(80)}…", not JSON`,
    );
    expect(notJsonAnswer('X', 200, 'text/html', ' \n')).toBe(
      'X answered HTTP 200 (text/html) with an empty body, not JSON',
    );
  });

  it('a dangling link says where it points; a loop and a plain missing file say their errno', () => {
    const dangling = join(dir, 'dangling');
    symlinkSync(join(dir, 'gone'), dangling);
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    expect(linkToNowhere(dangling)).toBe(
      `a symbolic link to a file that does not exist (${join(dir, 'gone')})`,
    );
    expect(linkToNowhere(join(dir, 'loop-a'))).toBeUndefined();
    expect(linkToNowhere(join(dir, 'nothing'))).toBeUndefined();
    expect(whyUnreadable(join(dir, 'loop-a'), { code: 'ELOOP' })).toBe(
      'too many levels of symbolic links (ELOOP)',
    );
    expect(whyUnreadable(join(dir, 'nothing'), { code: 'ENOENT' })).toBe(
      'no such file or directory (ENOENT)',
    );
  });

  it('a bug is one line with its first message line and "please report", no stack frame', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'total')\nmore");
    const line = unexpectedErrorLine(bug);
    expect(line).toBe(
      "ralph: unexpected error: TypeError: Cannot read properties of undefined (reading 'total') — this is a bug in Ralph: please report it with the command you ran",
    );
    expect(unexpectedErrorLine('thrown text')).toContain('thrown text — this is a bug');
  });
});
