import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDashboard } from '../helpers/dashboard.ts';
import { makeWorkspace, type RalphProcess, readRecords, runRalph } from '../helpers/workspace.ts';

const started: RalphProcess[] = [];

afterEach(async () => {
  for (const p of started.splice(0)) {
    p.child.kill('SIGTERM');
    await p.done;
  }
});

/** ralph.yml for the fake agent speaking stream-json (so tokens and cost are reported), with a tests gate. */
function config(maxIterations: number, tests?: string, model?: string): string {
  return [
    'event_loop:',
    '  prompt_file: PROMPT.md',
    `  max_iterations: ${maxIterations}`,
    'cli:',
    '  backend: fake',
    '  fake_script: fake-agent.yml',
    '  output_format: stream-json',
    ...(model ? [`  model: ${model}`] : []),
    ...(tests ? ['gates:', '  tests:', `    command: ${JSON.stringify(tests)}`] : []),
    '',
  ].join('\n');
}

// Iteration 2 fails (exit 3); iteration 3 completes; any other iteration is one step.
const SCRIPT = `turns:
  - when: { iteration: 2 }
    do:
      - result: { text: "oops", cost_usd: 0.05, input_tokens: 500, output_tokens: 50 }
      - exit: 3
  - when: { iteration: 3 }
    do:
      - result: { text: "done\\nLOOP_COMPLETE", cost_usd: 0.03, input_tokens: 3000, output_tokens: 300 }
  - do:
      - result: { text: "step", cost_usd: 0.01, input_tokens: 1000, output_tokens: 100 }
`;

/** Every line of `ralph stats` fits 80 columns (code points: `→`, `·` and `…` are one column). */
function expectFits(text: string): void {
  for (const line of text.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
}

// The tests gate leaves an istanbul summary whose total grows with the iteration: 50 + 10 × N percent.
const COVERAGE_GATE =
  'mkdir -p coverage && echo "{\\"total\\":{\\"lines\\":{\\"pct\\":$((50 + RALPH_ITERATION * 10))}}}" > coverage/coverage-summary.json';

describe('ralph stats', () => {
  it('equals a hand count over the records of two real runs (one completed, one stopped by max_iterations)', async () => {
    const env = { XDG_STATE_HOME: makeWorkspace() };
    const ws = makeWorkspace({
      'PROMPT.md': 'work\n',
      'fake-agent.yml': SCRIPT,
      'ralph.yml': config(5, COVERAGE_GATE),
    });
    expect((await runRalph(['run', '--no-tui', '-q'], ws, env)).code).toBe(0);
    expect((await runRalph(['run', '--no-tui', '-q', '--max-iterations', '2'], ws, env)).code).toBe(2);

    const records = readRecords(ws);
    expect(records.map((r) => r.verdict)).toEqual(['success', 'failure', 'complete', 'success', 'failure']);
    const r = await runRalph(['stats', '--json'], ws, env);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    // By hand: 0.01 + 0.05 + 0.03 in the first run, 0.01 + 0.05 in the second.
    expect(s.runs).toBe(2);
    expect(s.iterations).toBe(5);
    expect(s.cost_usd).toBeCloseTo(0.15, 10);
    expect(s.tokens).toBe(1100 + 550 + 3300 + 1100 + 550);
    expect(s.duration_ms).toBe(records.reduce((a, x) => a + x.duration_ms, 0));
    expect(s.stop_reasons).toEqual({ completed: 1, max_iterations: 1 });
    expect(s.by_hat).toEqual([
      expect.objectContaining({
        name: '(solo)',
        iterations: 5,
        succeeded: 3,
        failed: 2,
        success_rate: 0.6,
        failure_rate: 0.4,
      }),
    ]);
    expect(s.by_backend.map((g: { name: string; iterations: number }) => [g.name, g.iterations])).toEqual([
      ['fake', 5],
    ]);
    // No task was closed, so the completed run is the completed task.
    expect(s.tasks).toMatchObject({ source: 'runs', completed: 1, failed: 1 });
    expect(s.tasks.cost_per_completed_usd).toBeCloseTo(0.15, 10);
    // The gate ran after each successful agent run: iterations 1 and 3, then 1 of the second run.
    expect(s.coverage.map((c: { pct: number; source: string }) => [c.pct, c.source])).toEqual([
      [60, 'coverage/coverage-summary.json'],
      [80, 'coverage/coverage-summary.json'],
      [60, 'coverage/coverage-summary.json'],
    ]);
    expect(records[0]?.gates.tests.coverage).toEqual({ pct: 60, source: 'coverage/coverage-summary.json' });

    const text = (await runRalph(['stats'], ws, env)).stdout;
    expect(text).toContain('2 runs in 1 workspace, all history');
    expect(text).toContain('iterations 5 · ');
    expect(text).toContain('tokens 6,600 · cost $0.1500');
    expect(text).toContain('stop reasons: completed 1, max_iterations 1');
    expect(text).toMatch(/^\(solo\)\s+5\s+3\s+2\s+60%/m);
    expect(text).toContain('coverage: 60% → 80% → 60%');
    expectFits(text);

    // A window after every iteration: nothing; a bad window: a usage error naming the forms.
    const later = await runRalph(['stats', '--since', '2999-01-01'], ws, env);
    expect(later.stdout).toMatch(/^no runs in .* since 2999-01-01T00:00:00.000Z/);
    const bad = await runRalph(['stats', '--since', 'yesterday'], ws, env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--since expects a span back from now (90m, 12h, 7d, 2w) or a date');

    // --all: every registered workspace, from anywhere.
    const model = 'claude-sonnet-4-5-20250929-with-a-very-long-deployment-name';
    const other = makeWorkspace({
      'PROMPT.md': 'work\n',
      'fake-agent.yml': SCRIPT,
      'ralph.yml': config(1, undefined, model),
    });
    expect((await runRalph(['run', '--no-tui', '-q'], other, env)).code).toBe(2);
    // Without coverage, with a model name too long for the table: every line still fits.
    const alone = (await runRalph(['stats'], other, env)).stdout;
    expect(alone).toContain('coverage: no summary recorded');
    expect(alone).toMatch(/^claude-sonnet-4-5-2\S*…\s+1\s+1\s+0\s+100%/m);
    expectFits(alone);
    expectFits((await runRalph(['stats', '--all'], makeWorkspace(), env)).stdout);
    const all = JSON.parse((await runRalph(['stats', '--all', '--json'], makeWorkspace(), env)).stdout);
    expect(all.workspaces.sort()).toEqual([ws, other].sort());
    expect(all.runs).toBe(3);
    expect(all.iterations).toBe(6);
    expect(all.cost_usd).toBeCloseTo(0.16, 10);

    // The dashboard's stats page: the same figures, as charts (server-rendered SVG) and tables.
    const dash = await openDashboard({ track: (p) => started.push(p), env });
    const page = await dash.get('/stats');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('3 runs in 2 workspaces · 6 iterations');
    expect(html).toContain('cost $0.1600');
    for (const chart of [
      'cost per run',
      'iterations per run',
      'time per run',
      'success rate per hat',
      'test coverage over time',
    ])
      expect(html).toContain(`aria-label="${chart}"`);
    expect(html).toMatch(/<tr><td>\(solo\)<\/td><td>6<\/td><td>4<\/td><td>2<\/td><td>67%<\/td>/);
    expect(html).toContain('<tr><td>max_iterations</td><td>2</td></tr>');
    const badWindow = await dash.get('/stats?since=yesterday');
    expect(badWindow.status).toBe(400);
    // The error names what was typed here (the address's ?since=), not the CLI's flag.
    const why = await badWindow.text();
    expect(why).toContain('?since= expects a span back from now (90m, 12h, 7d, 2w) or a date');
    expect(why).not.toContain('--since');
    expect(await (await dash.get('/stats?since=2999-01-01')).text()).toContain(
      'No iterations recorded in this window',
    );
  });
});

describe('ralph estimate', () => {
  it('without history says what it is based on; after a run, a repeat of it lies in the stated range', async () => {
    const env = { XDG_STATE_HOME: makeWorkspace() };
    // Three iterations, each a step of fixed tokens and cost; the third completes.
    const script = `turns:
  - when: { iteration: 3 }
    do:
      - sleep: 0.4
      - result: { text: "done\\nLOOP_COMPLETE", cost_usd: 0.02, input_tokens: 2000, output_tokens: 200 }
  - do:
      - sleep: 0.4
      - result: { text: "step", cost_usd: 0.01, input_tokens: 1000, output_tokens: 100 }
`;
    const ws = makeWorkspace({ 'PROMPT.md': 'work\n', 'fake-agent.yml': script, 'ralph.yml': config(10) });

    const first = JSON.parse((await runRalph(['estimate', '--json'], ws, env)).stdout);
    expect(first.based_on.kind).toBe('size');
    expect(first.based_on.text).toContain('no earlier run of this setup');
    expect(first.cost_usd).toBeNull();

    expect((await runRalph(['run', '--no-tui', '-q'], ws, env)).code).toBe(0);
    const e = JSON.parse((await runRalph(['estimate', '--json'], ws, env)).stdout);
    expect(e.based_on).toMatchObject({ kind: 'history', runs: 1, iterations: 3 });

    // run --estimate prints the same estimate and starts nothing.
    const runsBefore = readdirSync(join(ws, '.ralph', 'runs')).length;
    const printed = await runRalph(['run', '--estimate'], ws, env);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('estimate (from history): 1 earlier run');
    expect(printed.stdout).toContain('limit max_iterations 10: within the whole range');
    expect(readdirSync(join(ws, '.ralph', 'runs')).length).toBe(runsBefore);

    const before = new Set(readRecords(ws).map((r) => r.run_id));
    expect((await runRalph(['run', '--no-tui', '-q'], ws, env)).code).toBe(0);
    const actual = readRecords(ws).filter((r) => !before.has(r.run_id));
    const inRange = (v: number, range: { low: number; high: number }) => {
      expect(v).toBeGreaterThanOrEqual(range.low - 1e-9);
      expect(v).toBeLessThanOrEqual(range.high + 1e-9);
    };
    inRange(actual.length, e.iterations);
    inRange(
      actual.reduce((a, r) => a + r.tokens.total, 0),
      e.tokens,
    );
    inRange(
      actual.reduce((a, r) => a + r.cost_usd, 0),
      e.cost_usd,
    );
    inRange(
      actual.reduce((a, r) => a + r.duration_ms, 0),
      e.duration_ms,
    );

    // A limit below the range is named as the one that stops the run.
    const tight = JSON.parse(
      (await runRalph(['estimate', '--json', '--max-iterations', '1'], ws, env)).stdout,
    );
    expect(tight.stopped_by).toBe('max_iterations');
    expect(tight.limits[0]).toEqual({ limit: 'max_iterations', max: 1, verdict: 'stops' });
    expect(existsSync(join(ws, '.ralph', 'loop.lock'))).toBe(false);
  });
});
