import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { startRalphScreen } from '../helpers/screen.ts';
import { fakeConfig, ROOT, runRalph } from '../helpers/workspace.ts';

const TITLES = ['Alpha task', 'Beta task', 'Gamma task'];

/** A repository with one task per title; the fake agent sleeps, writes a file of its own and completes. */
async function parallelWorkspace(sleepSeconds: number): Promise<string> {
  const turns = TITLES.flatMap((title) => [
    `  - when: { prompt: "${title}" }`,
    '    do:',
    `      - sleep: ${sleepSeconds}`,
    `      - write: { path: "${title.split(' ')[0]?.toLowerCase()}.txt", content: "${title}\\n" }`,
    '      - print: LOOP_COMPLETE',
  ]);
  const dir = makeGitWorkspace({
    'PROMPT.md': 'Do the task.\n',
    'ralph.yml': `${fakeConfig({ max_iterations: 5, max_cost_usd: 10 })}git:\n  commit: true\n`,
    'fake-agent.yml': `turns:\n${turns.join('\n')}\n`,
  });
  for (const title of TITLES) {
    const r = await runRalph(['tools', 'task', 'add', title], dir);
    expect(r.code, r.stderr).toBe(0);
  }
  return dir;
}

/** Keeps a screen as a test artifact (test-artifacts/, ignored by git). */
function keep(name: string, rows: string[]): void {
  const dir = join(ROOT, 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `${rows.join('\n')}\n`);
}

describe('terminal UI of ralph run --parallel', () => {
  it('shows the three workers side by side, the merge queue and the events, then ends with the summary', async () => {
    const dir = await parallelWorkspace(3);
    const t = await startRalphScreen(['run', '--parallel', '3'], dir, {}, { cols: 120, rows: 30 });
    // All three at work at once: one screen row holds the three titles, one per column.
    const rows = await t.waitForScreen(
      /iteration 1 · running[^\n]*iteration 1 · running[^\n]*iteration 1 · running/,
      20_000,
    );
    keep('parallel-tui-working.txt', rows);
    expect(rows[0]).toMatch(/^ralph parallel par-\S+ · into main · 3 workers · tasks 0\/3 merged · /);
    expect(rows[1]).toMatch(/cost \$0\.0000 of \$10\.00 ░+ 0%/);
    const titles = rows.find((r) => TITLES.every((title) => r.includes(title)));
    expect(titles, rows.join('\n')).toBeDefined();
    const columns = TITLES.map((title) => titles?.indexOf(title) ?? -1).sort((a, b) => a - b);
    // Columns of 40: each title starts in its own third of the screen.
    expect(columns.map((c) => Math.floor(c / 40))).toEqual([0, 1, 2]);
    expect(rows.some((r) => /^w1\b.*\bw2\b.*\bw3\b/.test(r))).toBe(true);
    expect(rows.join('\n')).toContain('merge queue');
    expect(rows.join('\n')).toMatch(/w\d took task-\w+ "(Alpha|Beta|Gamma) task"/);

    const exit = await t.exited;
    expect(exit.exitCode).toBe(0);
    const end = (await t.screen()).join('\n');
    keep('parallel-tui-end.txt', end.split('\n'));
    expect(end).toContain(
      'ralph: parallel run completed — 3/3 task(s) merged. all 3 task(s) merged into main',
    );
    // The TUI gave the screen back: its panes are gone.
    expect(end).not.toContain('merge queue');
    expect(git(dir, 'log', '--format=%s', 'main').split('\n').length).toBeGreaterThanOrEqual(4);
  });

  it('q stops the run like Ctrl-C in the plain mode: the workers record their iteration, the summary follows', async () => {
    const dir = await parallelWorkspace(30);
    const t = await startRalphScreen(['run', '--parallel', '2'], dir, {}, { cols: 100, rows: 24 });
    const rows = await t.waitForScreen(/iteration 1 · running[^\n]*iteration 1 · running/, 20_000);
    expect(rows.join('\n')).toMatch(/merge queue\n\(empty\)/);
    t.write('q');
    const exit = await t.exited;
    expect(exit.exitCode).toBe(130);
    const end = (await t.screen()).join('\n');
    expect(end).toMatch(/ralph: parallel run interrupted — 0\/\d task\(s\) merged/);
    const state = JSON.parse(readFileSync(join(dir, '.ralph/parallel/state.json'), 'utf8'));
    expect(state.status).toBe('interrupted');
  });
});
