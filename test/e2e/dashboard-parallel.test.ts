import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { CHROMIUM, openDashboard } from '../helpers/dashboard.ts';
import { screenshotPath } from '../helpers/docs-images.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { fakeConfig, type RalphProcess, runRalph, startRalph, waitFor } from '../helpers/workspace.ts';

const running: RalphProcess[] = [];

afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.done;
  }
});

const TITLES = ['Alpha task', 'Beta task'];

/** The parallel state file of `dir` as written (null before the coordinator writes it). */
function parallelState(dir: string): Record<string, any> | null {
  const file = join(dir, '.ralph/parallel/state.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

const dashboard = () => openDashboard({ track: (p) => running.push(p) });

describe('dashboard: a parallel run (real HTTP)', () => {
  it('lists it, shows the workers side by side and every task, refreshes over SSE, ends with the merged commits', {
    timeout: 60_000,
  }, async () => {
    const turns = TITLES.flatMap((title) => [
      `  - when: { prompt: "${title}" }`,
      '    do:',
      // Each agent works until the test releases it: the page is looked at while both are at work.
      '      - run: "while [ ! -f ../../../release ]; do sleep 0.1; done"',
      `      - write: { path: "${title.split(' ')[0]?.toLowerCase()}.txt", content: "${title}\\n" }`,
      '      - print: LOOP_COMPLETE',
    ]);
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Do the task.\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 5 })}git:\n  commit: true\n`,
      'fake-agent.yml': `turns:\n${turns.join('\n')}\n`,
    });
    for (const title of TITLES) expect((await runRalph(['tools', 'task', 'add', title], dir)).code).toBe(0);
    const run = startRalph(['run', '--parallel', '2'], dir);
    running.push(run);
    const working = () =>
      Object.values(parallelState(dir)?.tasks ?? {}).filter((t: any) => t.state === 'working') as any[];
    // Both workers have their loop state (their iteration under way) in their worktrees.
    await waitFor(
      () =>
        working().length === 2 &&
        working().every((t) => existsSync(join(dir, '.ralph/worktrees', t.worktree, '.ralph/state.json'))),
      20_000,
      'two workers at work',
    );
    const d = await dashboard();

    const index = await (await d.get('/')).text();
    expect(index).toContain('Parallel runs');
    const row = index.split('<tr').find((r) => r.includes(`>${dir}<`)) ?? '';
    const key = /href="\/parallel\/([0-9a-f]+)"/.exec(row)?.[1] as string;
    expect(key, index).toBeDefined();
    expect(row).toContain('running');

    const page = await (await d.get(`/parallel/${key}`)).text();
    const cards = [...page.matchAll(/<div class="worker" data-worker="(w\d)">(.*?)<\/div>/g)];
    expect(cards.map((c) => c[1])).toEqual(['w1', 'w2']);
    expect(cards.map((c) => /<a [^>]*>([^<]+)<\/a>/.exec(c[2] as string)?.[1]).sort()).toEqual(TITLES);
    for (const c of cards) expect(c[2]).toMatch(/iteration 1\/5 · running/);
    expect(page).toContain('merge queue empty');
    expect(page.match(/class="state-working">working/g)).toHaveLength(2);

    // The live part follows over SSE: one event at once, another when the files change.
    // Without the cookie the stream is refused: it carries the run's state.
    expect((await fetch(`${new URL(d.url).origin}/parallel/${key}/stream`)).status).toBe(401);
    const stream = await d.get(`/parallel/${key}/stream`);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    const events = async (n: number) => {
      while ((seen.match(/event: changed/g) ?? []).length < n) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      return (seen.match(/event: changed/g) ?? []).length;
    };
    expect(await events(1)).toBe(1);

    // In a browser: the page's script re-fetches the section on each event, up to the end of the run.
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const tab = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      await tab.goto(d.url);
      await tab.goto(`${new URL(d.url).origin}/parallel/${key}`);
      await tab.locator('.worker:not(.idle)').nth(1).waitFor();
      // docs/images/ under `npm run docs:images`, else test-artifacts/ (a test run leaves the checkout as it was).
      await tab.screenshot({ path: screenshotPath('dashboard-parallel.png'), fullPage: true });
      // The agents finish now: the files change, the stream says so, the page follows.
      // (Files the workers wrote while the browser started may have sent one more already.)
      writeFileSync(join(dir, 'release'), '');
      expect(await events(2)).toBeGreaterThanOrEqual(2);
      await reader.cancel();
      await tab.getByText('2/2 tasks merged').waitFor({ timeout: 30_000 });
    } finally {
      await browser.close();
    }
    const end = await run.done;
    expect(end.code, end.stderr).toBe(0);
    const live = await (await d.get(`/parallel/${key}/live`)).text();
    const state = parallelState(dir) as Record<string, any>;
    for (const t of Object.values(state.tasks) as any[]) {
      const tr = live.split('<tr').find((r) => r.includes(`data-task="${t.id}"`)) ?? '';
      expect(tr).toContain('class="state-merged">merged');
      expect(tr).toContain('✓ no gates');
      expect(tr).toContain(`<code>${t.merged_commit.slice(0, 8)}</code>`);
      // The commit shown is on the target branch.
      git(dir, 'merge-base', '--is-ancestor', t.merged_commit, 'main');
    }
    expect(live).toMatch(/2\/2 tasks merged/);
    expect(live.match(/class="worker idle"/g)).toHaveLength(2);
  });
});
