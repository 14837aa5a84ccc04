import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { CHROMIUM, openDashboard } from '../helpers/dashboard.ts';
import { screenshotPath } from '../helpers/docs-images.ts';
import {
  fakeConfig,
  makeWorkspace,
  type RalphProcess,
  ROOT,
  readState,
  readStatus,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

const running: RalphProcess[] = [];

afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.done;
  }
});

const startDashboard = (args: string[] = []) => openDashboard({ track: (p) => running.push(p), args });

describe('dashboard security (real HTTP requests)', () => {
  it('needs the token, sets an HttpOnly SameSite=Strict cookie, checks Host and Origin, never acts on GET', async () => {
    const { url, origin, token } = await startDashboard();
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect((await fetch(`${origin}/`)).status).toBe(401);
    expect((await fetch(`${origin}/?token=wrong`)).status).toBe(401);
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie') as string;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const jar = cookie.split(';')[0] as string;
    expect((await fetch(`${origin}/`, { headers: { cookie: jar } })).status).toBe(200);
    // DNS rebinding: a foreign Host with a valid cookie is refused (fetch cannot set Host; http can).
    const rebound = await new Promise<number>((resolve, reject) => {
      const u = new URL(origin);
      request(
        { host: u.hostname, port: u.port, path: '/', headers: { cookie: jar, host: 'evil.example:80' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(421);
    // A POST from another origin, or with none, is refused even with the cookie.
    const post = (headers: Record<string, string>) =>
      fetch(`${origin}/run/abc/action`, {
        method: 'POST',
        headers: { cookie: jar, ...headers },
        body: 'kind=stop',
      });
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({})).status).toBe(403);
    expect((await post({ origin })).status).toBe(404);
    // State changes only on POST: the action URL does nothing on GET.
    expect((await fetch(`${origin}/run/abc/action?kind=stop`, { headers: { cookie: jar } })).status).toBe(
      404,
    );
    expect((await fetch(`${origin}/?token=${token}`, { method: 'PUT' })).status).toBe(400);
  });

  it('binds off loopback only with --unsafe-expose, and warns', async () => {
    const refused = await runRalph(['dashboard', '--host', '0.0.0.0'], ROOT);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('add --unsafe-expose if you mean it');
    const p = startRalph(['dashboard', '--host', '0.0.0.0', '--unsafe-expose'], ROOT);
    running.push(p);
    // Bound to every interface, the URL it prints is one that works from this machine (127.0.0.1);
    // the names it answers to from elsewhere follow the warning.
    await waitFor(() => p.stderr().includes('ralph dashboard: http://127.0.0.1:'), 15_000, 'the URL');
    expect(p.stderr()).toContain('warning — the dashboard listens on 0.0.0.0');
    expect(p.stderr()).toMatch(/answers to Host 0\.0\.0\.0:\d+, 127\.0\.0\.1:\d+, localhost:\d+/);
  });
});

describe('dashboard in Chromium', () => {
  it.skipIf(!existsSync(CHROMIUM))(
    'lists the run, streams output live, sends guidance, answers a question and stops the loop',
    async () => {
      const dir = makeWorkspace({
        'PROMPT.md': 'work\n',
        'ralph.yml': fakeConfig({ max_iterations: 30 }),
        'fake-agent.yml': [
          'turns:',
          '  - when: { iteration: 1 }',
          '    do:',
          '      - print: "hello from iteration 1"',
          '      - run: "ralph ask \'Ship on Friday?\' --options yes,no > answer.txt"',
          '  - do:',
          '      - save_prompt: "p{{iteration}}.md"',
          '      - print: "working in iteration {{iteration}}"',
          '      - sleep: 1',
        ].join('\n'),
      });
      const loop = startRalph(['run'], dir);
      running.push(loop);
      await waitFor(() => readStatus(dir) === 'waiting_for_human', 15_000, 'the question');
      const { url } = await startDashboard();
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        await page.goto(url);
        await page.getByRole('heading', { name: /waiting \(1\)/ }).waitFor();
        await page.screenshot({ path: screenshotPath('dashboard-runs.png'), fullPage: true });
        await page.getByRole('link', { name: dir }).click();

        // The question, answered in the page, unblocks the agent.
        await page.getByText('Ship on Friday?').first().waitFor();
        await page.locator('input[name=answer]').fill('no');
        await page.getByRole('button', { name: 'Answer' }).click();
        await waitFor(() => readFileSync(join(dir, 'answer.txt'), 'utf8') === 'no\n', 15_000, 'the answer');

        // Live output arrives over SSE without a reload.
        await page
          .locator('#output')
          .getByText(/working in iteration \d+/)
          .first()
          .waitFor({ timeout: 15_000 });

        // Guidance typed in the page reaches the next prompt.
        await page.locator('textarea[name=guidance]').fill('keep the diff small');
        await page.getByRole('button', { name: 'Send guidance' }).click();
        await page.getByText('guidance sent').waitFor();
        await waitFor(
          () =>
            readdirSync(dir).some(
              (f) =>
                /^p\d+\.md$/.test(f) && readFileSync(join(dir, f), 'utf8').includes('keep the diff small'),
            ),
          15_000,
          'a prompt with the guidance',
        );
        await page.screenshot({ path: screenshotPath('dashboard-run.png'), fullPage: true });

        // Stop works.
        await page.getByRole('button', { name: 'Stop after this iteration' }).click();
        const r = await loop.done;
        expect(r.code).toBe(0);
        expect(readState(dir)).toMatchObject({ stop_reason: 'cancelled' });
        await page.goto(new URL(url).origin);
        await page.getByRole('heading', { name: /stopped \(\d+\)/ }).waitFor();
        expect(await page.content()).toContain('cancelled: stopped by `ralph stop`');
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
