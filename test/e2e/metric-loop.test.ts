import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { CHROMIUM, openDashboard } from '../helpers/dashboard.ts';
import { screenshotPath } from '../helpers/docs-images.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { startRalphPty } from '../helpers/pty.ts';
import {
  fakeConfig,
  makeWorkspace,
  readRecords,
  readState,
  removeWhenDone,
  runRalph,
  stopWhenDone,
} from '../helpers/workspace.ts';

const BENCH = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'metric', 'bench.cjs'), 'utf8');

/** One iteration of the fake agent: writes value.txt and says its idea on the last line. */
const turn = (iteration: number, value: string, idea: string) => [
  `  - when: { iteration: ${iteration} }`,
  '    do:',
  `      - save_prompt: .ralph/p${iteration}.md`,
  `      - write: { path: value.txt, content: "${value}\\n" }`,
  `      - print: "${idea}"`,
];

/**
 * A project whose benchmark prints value.txt plus noise that spreads three repeats by 3
 * (test/fixtures/metric/bench.cjs); the noise's position lives outside the repository.
 */
function project(metric: string, turns: string[][], maxIterations = 6): string {
  const dir = makeGitWorkspace({
    'PROMPT.md': 'make the benchmark faster\n',
    'value.txt': '100\n',
    'bench.cjs': BENCH,
    '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
    'fake-agent.yml': ['turns:', ...turns.flat()].join('\n'),
  });
  const noise = removeWhenDone(`${dir}.noise`);
  const config = `${fakeConfig({ max_iterations: maxIterations })}git:\n  commit: true\nmetric:\n  command: METRIC_NOISE_STATE=${noise} node bench.cjs${metric}`;
  return commitConfig(dir, config);
}

/** Writes ralph.yml and commits it: the run starts from a clean tree. */
function commitConfig(dir: string, config: string): string {
  writeFileSync(join(dir, 'ralph.yml'), config);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'ralph.yml');
  return dir;
}

function attempts(dir: string): Record<string, any>[] {
  return readFileSync(join(dir, '.ralph', 'metric', 'attempts.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('metric: keep only what improves', () => {
  it('rolls back noise-level "improvements", keeps real ones, feeds failed ideas back, and stops at the target with the best commit as HEAD', async () => {
    const dir = project('\n  direction: min\n  pattern: "time: ([0-9.]+) ms"\n  repeats: 3\n  target: 80\n', [
      turn(1, '99', 'idea: shave one millisecond'),
      turn(2, '90', 'idea: cache the parser'),
      turn(3, '89.5', 'idea: inline the hot loop'),
      turn(4, '79', 'idea: precompute the table'),
    ]);
    // A registry of its own: the dashboard below charts this workspace only.
    const env = { XDG_STATE_HOME: makeWorkspace() };
    const r = await runRalph(['run'], dir, env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const state = readState(dir);
    expect(state.stop_reason).toBe('metric_target');
    expect(state.stop_message).toContain('metric target reached: 79.2');
    const runId = state.run_id as string;

    const a = attempts(dir);
    expect(a.map((x) => [x.iteration, x.verdict])).toEqual([
      [0, 'baseline'],
      [1, 'not_kept'],
      [2, 'kept'],
      [3, 'not_kept'],
      [4, 'kept'],
    ]);
    expect(a[0]).toMatchObject({ value: 100.2, spread: 3, values: [101.5, 98.5, 100.2] });
    expect(a[1]).toMatchObject({
      idea: 'idea: shave one millisecond',
      value: 99.2,
      noise: 3,
      rescue_ref: `refs/ralph/rescue/${runId}/1`,
    });
    expect(a[1]?.why).toContain('within the noise');
    expect(a[2]).toMatchObject({ idea: 'idea: cache the parser', value: 90.2, kept: true, rescue_ref: null });

    // The best commit is the branch head; the rejected attempts are only in their rescue refs.
    expect(readFileSync(join(dir, 'value.txt'), 'utf8')).toBe('79\n');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(a[4]?.commit);
    const subjects = git(dir, 'log', '--format=%s').trim().split('\n');
    expect(subjects).toHaveLength(4);
    expect(git(dir, 'show', `refs/ralph/rescue/${runId}/3:value.txt`)).toBe('89.5\n');
    const [first] = readRecords(dir);
    expect(first).toMatchObject({ verdict: 'failure' });
    expect(first?.reason).toContain('metric: within the noise');

    // The next prompts carry the best so far and the failed idea, so it is not retried.
    const p2 = readFileSync(join(dir, '.ralph', 'p2.md'), 'utf8');
    expect(p2).toContain('## Metric');
    expect(p2).toContain('best so far 100.2 (the baseline)');
    expect(p2).toContain('- iteration 1: idea: shave one millisecond → 99.2');
    const p4 = readFileSync(join(dir, '.ralph', 'p4.md'), 'utf8');
    expect(p4).toContain('best so far 90.2 (iteration 2');
    expect(p4).toContain('- iteration 3: idea: inline the hot loop');

    // `ralph stats --json`: the run's series, attempt by attempt, with the best so far.
    const s = JSON.parse((await runRalph(['stats', '--json'], dir, env)).stdout);
    expect(s.metric).toHaveLength(1);
    const m = s.metric[0];
    expect(m).toMatchObject({
      run_id: runId,
      command: expect.stringContaining('node bench.cjs'),
      direction: 'min',
      target: 80,
      baseline: { value: 100.2, spread: 3 },
      best: { value: 79.2, iteration: 4, commit: a[4]?.commit },
      attempts: 4,
      kept: 2,
      rolled_back: 2,
      measure_failed: 0,
    });
    expect(m.improvement).toBeCloseTo(21, 10);
    expect(m.improvement_pct).toBeCloseTo((21 / 100.2) * 100, 10);
    expect(
      m.points.map((p: Record<string, unknown>) => [p.attempt, p.iteration, p.value, p.kept, p.best_so_far]),
    ).toEqual([
      [1, 1, 99.2, false, 100.2],
      [2, 2, 90.2, true, 90.2],
      [3, 3, a[3]?.value, false, 90.2],
      [4, 4, 79.2, true, 79.2],
    ]);
    expect(m.points[1].values).toEqual(a[2]?.values);
    // The window and --all as for the rest of stats: nothing after the run; every registered workspace.
    const later = JSON.parse((await runRalph(['stats', '--json', '--since', '2999-01-01'], dir, env)).stdout);
    expect(later.metric).toEqual([]);
    const all = JSON.parse((await runRalph(['stats', '--json', '--all'], makeWorkspace(), env)).stdout);
    expect(all.metric.map((x: { workspace: string; run_id: string }) => [x.workspace, x.run_id])).toEqual([
      [dir, runId],
    ]);

    // `ralph stats`: the same in words, and a sparkline; piped output gets digits 1–8, not blocks.
    const text = (await runRalph(['stats'], dir, env)).stdout;
    expect(text).toContain(`min: lower is better), run ${runId}`);
    expect(text).toContain(
      `baseline 100.2 → best 79.2 (iteration 4, commit ${a[4]?.commit.slice(0, 12)}) · target 80`,
    );
    expect(text).toContain('improvement over the baseline: 21 (20.96% lower)');
    expect(text).toContain('attempts 4: kept 2, rolled back 2');
    expect(text).toMatch(/^ {2}value {2}85\d1$/m);
    expect(text).toMatch(/^ {2}kept {4}\^ \^$/m);
    expect(text).toContain('1 79.2 … 8 100.2 · ^ kept · attempts 1–4');
    expect(text).not.toMatch(/[▁-█]/);
    // Every line fits in 80 columns: a long command is cut, `--json` has it whole.
    for (const line of text.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    // The chart's lines fit in 80 columns.
    for (const line of text.split('\n').filter((l) => /^ {2}(value|kept) | {9}\S/.test(l)))
      expect(line.length).toBeLessThanOrEqual(80);

    // On a UTF-8 terminal the heights are block elements; NO_COLOR there gets the digits again.
    const tty = { ...env, NO_COLOR: undefined, CI: 'false', TERM: 'xterm-256color', LANG: 'C.UTF-8' };
    const onTerminal = await startRalphPty(['stats'], dir, tty, { cols: 120, rows: 40 });
    expect((await onTerminal.exited).exitCode).toBe(0);
    expect(onTerminal.output()).toMatch(/value {2}█▅▅▁/);
    expect(onTerminal.output()).toContain('▁ 79.2 … █ 100.2 · ^ kept');
    const noColor = await startRalphPty(['stats'], dir, { ...tty, NO_COLOR: '1' }, { cols: 120, rows: 40 });
    expect((await noColor.exited).exitCode).toBe(0);
    expect(noColor.output()).toMatch(/value {2}8551/);

    // The dashboard's /stats: one SVG per metric run, a point per attempt, kept ones told apart.
    const dash = await openDashboard({ track: stopWhenDone, env });
    const html = await (await dash.get('/stats')).text();
    const svg = /<svg class="metric-chart"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    expect(svg).toContain('aria-labelledby="metric-0-title metric-0-desc"');
    expect(svg).toContain('(min: lower is better)');
    expect(svg).toContain('4 attempts of run');
    expect(svg.match(/<circle class="kept"/g)).toHaveLength(2);
    expect(svg.match(/<circle class="rolled-back"/g)).toHaveLength(2);
    expect(svg).toContain('<line class="target"');
    expect(svg).toContain('<path class="best" d="M');
    expect(html).toContain('baseline 100.2 → best 79.2');

    // Chromium draws it: the chart is an image named by its title, with its four points.
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      await page.goto(dash.url);
      await page.goto(`${dash.origin}/stats`);
      const chart = page.getByRole('img', { name: /per attempt \(min: lower is better\)/ });
      await chart.waitFor();
      expect(await chart.locator('circle').count()).toBe(4);
      await chart.screenshot({ path: screenshotPath('dashboard-stats-metric.png') });
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('a measurement that cannot be parsed is a failed attempt; metric.patience attempts not kept stop the run (exit 2)', async () => {
    const dir = project(
      '\n  direction: min\n  json_path: results.mean\n  repeats: 1\n  min_improvement: 5\n  patience: 2\n',
      [turn(1, 'oops', 'idea: break it'), turn(2, '98', 'idea: a small step')],
    );
    // The JSON form of the benchmark.
    const yml = readFileSync(join(dir, 'ralph.yml'), 'utf8').replace(
      'node bench.cjs',
      'node bench.cjs --json',
    );
    commitConfig(dir, yml);
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(readState(dir).stop_reason).toBe('metric_patience');
    const a = attempts(dir);
    expect(a.map((x) => x.verdict)).toEqual(['baseline', 'measure_failed', 'not_kept']);
    expect(a[1]?.why).toContain('the metric is not a number: "oops"');
    expect(a[2]?.why).toContain('too small');
    expect(readFileSync(join(dir, 'value.txt'), 'utf8')).toBe('100\n');
    // A failed measurement is an attempt without a value: `x` in the sparkline.
    const text = (await runRalph(['stats'], dir)).stdout;
    expect(text).toContain('attempts 2: kept 0, rolled back 2 (1 not measured)');
    expect(text).toContain('improvement over the baseline: none kept yet');
    expect(text).toMatch(/^ {2}value {2}x\d$/m);
  });

  it('a kill right after an attempt is appended (before the state save) leaves one line per iteration after --resume', async () => {
    const turns = [turn(1, '90', 'idea: cache the parser')];
    const metric = '\n  direction: min\n  pattern: "time: ([0-9.]+) ms"\n  repeats: 1\n';
    // Where iteration 1's attempt is appended, among the run's durable writes.
    const traced = project(metric, turns, 1);
    const trace = removeWhenDone(`${traced}.writes.jsonl`);
    const first = await runRalph(['run'], traced, { RALPH_FAULT_TRACE_WRITES: trace });
    expect(first.code, first.stdout + first.stderr).toBe(2);
    const writes = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const appends = writes.filter((w) => w.path.endsWith('attempts.jsonl'));
    expect(appends).toHaveLength(2);

    const dir = project(metric, turns, 1);
    const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(appends[1].n) });
    expect(killed.signal).toBe('SIGKILL');
    expect(attempts(dir).map((a) => a.iteration)).toEqual([0, 1]);
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const a = attempts(dir);
    // One line per iteration: iteration 1's re-run replaced the line its killed first try left.
    expect(a.map((x) => x.iteration)).toEqual([0, 1]);
    // The re-run measured the commit its killed first try landed (the candidate) and kept it; it
    // is not a `measure_failed` "no commit to measure" because the re-run's agent changed nothing.
    expect(a[1]).toMatchObject({ verdict: 'kept', kept: true });
    expect(Math.abs(a[1]?.value - 90)).toBeLessThanOrEqual(3);
    expect(a[1]?.why).not.toContain('no commit to measure');
    expect(a[1]?.commit).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(readRecords(dir).at(-1)?.verdict).not.toBe('failure');
    expect(new Set(a.map((x) => x.run_id)).size).toBe(1);
  });

  it('a reset between the kill and --resume leaves no landed candidate: the re-run starts at HEAD and says so', async () => {
    const turns = [turn(1, '90', 'idea: cache the parser')];
    const metric = '\n  direction: min\n  pattern: "time: ([0-9.]+) ms"\n  repeats: 1\n';
    const traced = project(metric, turns, 1);
    const trace = removeWhenDone(`${traced}.writes.jsonl`);
    await runRalph(['run'], traced, { RALPH_FAULT_TRACE_WRITES: trace });
    const appends = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((w) => w.path.endsWith('attempts.jsonl'));

    const dir = project(metric, turns, 1);
    const start = git(dir, 'rev-parse', 'HEAD').trim();
    const killed = await runRalph(['run'], dir, { RALPH_FAULT_KILL_AFTER_WRITE: String(appends[1].n) });
    expect(killed.signal).toBe('SIGKILL');
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(start);
    // The user drops the commit the killed try landed and rewords the one it started from.
    git(dir, 'reset', '-q', '--hard', start);
    git(dir, 'commit', '-q', '--amend', '-m', 'ralph.yml, reworded');
    const reworded = git(dir, 'rev-parse', 'HEAD').trim();
    const r = await runRalph(['run', '--resume'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout + r.stderr).toContain(
      `iteration 1: its interrupted try started at ${start.slice(0, 12)}, which is no longer in HEAD's history`,
    );
    // The re-run is judged from the HEAD it found, not from the dropped history.
    expect(readRecords(dir).at(-1)?.head_before).toBe(reworded);
    const a = attempts(dir);
    expect(a.map((x) => x.iteration)).toEqual([0, 1]);
    expect(a[1]).toMatchObject({ verdict: 'kept', commit: git(dir, 'rev-parse', 'HEAD').trim() });
    expect(git(dir, 'rev-parse', 'HEAD~1').trim()).toBe(reworded);
  });

  it('refuses to start when the baseline cannot be measured', async () => {
    const dir = project('\n  direction: max\n  pattern: "score: ([0-9.]+)"\n', [turn(1, '1', 'x')]);
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('metric: the baseline could not be measured');
    expect(r.stderr).toContain('no match for metric.pattern');
    expect(existsSync(join(dir, '.ralph', 'p1.md'))).toBe(false);
  });
});
