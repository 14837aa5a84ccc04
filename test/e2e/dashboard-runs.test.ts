import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { CHROMIUM, openDashboard } from '../helpers/dashboard.ts';
import {
  completingWorkspace,
  makeWorkspace,
  type RalphProcess,
  ROOT,
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

/** The run page's path of `workspace`, from the index's link to it. */
function runPath(index: string, workspace: string): string {
  const path = new RegExp(`<a href="(/run/[0-9a-f]+)">${workspace}</a>`).exec(index)?.[1];
  if (!path) throw new Error(`no link to ${workspace} on the index`);
  return path;
}

/** A registry in a temp dir of its own with two finished runs, one of them in a deleted workspace. */
async function twoFinishedRuns(): Promise<{ env: NodeJS.ProcessEnv; kept: string; gone: string }> {
  const env = { XDG_STATE_HOME: makeWorkspace() };
  const kept = completingWorkspace();
  const gone = completingWorkspace();
  expect((await runRalph(['run'], kept, env)).code).toBe(0);
  expect((await runRalph(['run'], gone, env)).code).toBe(0);
  rmSync(gone, { recursive: true, force: true });
  return { env, kept, gone };
}

describe('dashboard: removed workspaces and finished runs', () => {
  it('hides the runs whose workspace is gone unless asked; a run page offers stop/pause/resume only while the loop lives', async () => {
    const { env, kept, gone } = await twoFinishedRuns();
    const live = completingWorkspace(true);
    const loop = startRalph(['run'], live, env);
    running.push(loop);
    await waitFor(() => readStatus(live) === 'running', 15_000, 'the live loop');
    const dashboard = await openDashboard({ track: (p) => running.push(p), env });

    const index = await (await dashboard.get('/')).text();
    expect(index).toContain(`>${kept}</a>`);
    expect(index).toContain(`>${live}</a>`);
    expect(index).not.toContain(gone);
    expect(index).toContain('1 run whose workspace is gone hidden');
    expect(index).toContain('<a href="/?removed=1">Show removed</a>');
    const all = await (await dashboard.get('/?removed=1')).text();
    expect(all).toContain(`>${gone}</a>`);
    expect(all).toContain('the workspace is gone (ralph runs prune forgets it)');
    expect(all).toContain('<a href="/">Hide removed</a>');

    const controls = ['stop', 'stop_now', 'pause', 'resume'].map((a) => `data-action="${a}"`);
    const finished = await (await dashboard.get(runPath(index, kept))).text();
    for (const c of controls) expect(finished).not.toContain(c);
    expect(finished).toContain('data-action="guidance"');
    const livePath = runPath(index, live);
    const livePage = await (await dashboard.get(livePath)).text();
    for (const c of controls) expect(livePage).toContain(c);

    // When the loop ends, the live part (what the page re-fetches) drops the controls.
    writeFileSync(join(live, 'go'), '');
    expect((await loop.done).code).toBe(0);
    const ended = await (await dashboard.get(`${livePath}/live`)).text();
    expect(ended).toContain('completed');
    for (const c of controls) expect(ended).not.toContain(c);
  }, 60_000);

  it.skipIf(!existsSync(CHROMIUM))(
    'in Chromium: the index without, then with the removed runs (screenshots of both)',
    async () => {
      const { env, kept, gone } = await twoFinishedRuns();
      const { url } = await openDashboard({ track: (p) => running.push(p), env });
      const shots = join(ROOT, 'test-artifacts');
      mkdirSync(shots, { recursive: true });
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 500 } });
        await page.goto(url);
        await page.getByRole('link', { name: kept, exact: true }).waitFor();
        expect(await page.getByRole('link', { name: gone, exact: true }).count()).toBe(0);
        await page.screenshot({ path: join(shots, 'dashboard-index.png'), fullPage: true });
        await page.getByRole('link', { name: 'Show removed' }).click();
        await page.getByRole('link', { name: gone, exact: true }).waitFor();
        expect(new URL(page.url()).search).toBe('?removed=1');
        await page.screenshot({ path: join(shots, 'dashboard-index-removed.png'), fullPage: true });
        await page.getByRole('link', { name: 'Hide removed' }).click();
        await page.getByRole('link', { name: 'Show removed' }).waitFor();
        expect(await page.getByRole('link', { name: gone, exact: true }).count()).toBe(0);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
