import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateStats } from '../../../../src/observe/stats/aggregate-stats.ts';
import {
  estimateFromHistory,
  estimateFromSize,
  limitVerdict,
} from '../../../../src/observe/stats/estimate-run.ts';
import type { RunHistory } from '../../../../src/observe/stats/run-history.ts';
import type { IterationRecord } from '../../../../src/state/iteration-record-shape.ts';
import { iterationRecord } from '../../../helpers/iteration-record.ts';

/** A passed tests gate that left a coverage summary. */
const coverageOf = (pct: number, source: string) => ({
  command: 'npm test',
  passed: true,
  exit_code: 0,
  timed_out: false,
  duration_ms: 10,
  coverage: { pct, source },
  scope: 'full' as const,
});

const VERDICTS = ['success', 'complete', 'failure', 'limit', 'aborted', 'gate_tampered', 'parked', 'idle'];
const T0 = Date.parse('2026-11-01T00:00:00Z');

/** Iteration `i` of run `runId`, started `i` minutes after T0 unless `r` says otherwise. */
const record = (runId: string, i: number, r: Partial<IterationRecord>): IterationRecord =>
  iterationRecord({
    run_id: runId,
    iteration: i,
    started_at: new Date(T0 + i * 60_000).toISOString(),
    finished_at: new Date(T0 + i * 60_000).toISOString(),
    duration_ms: 0,
    ...r,
  });

const recordShape = fc.record({
  hat: fc.constantFrom(null, 'planner', 'builder'),
  backend: fc.constantFrom('fake', 'claude'),
  model: fc.constantFrom(null, 'claude-sonnet-4-5', 'gpt-5'),
  duration_ms: fc.nat(600_000),
  total: fc.nat(500_000),
  cost_usd: fc.option(fc.integer({ min: 0, max: 10_000 }).map((c) => c / 1000)),
  verdict: fc.constantFrom(...VERDICTS),
  day: fc.nat(30),
});

const histories = fc.array(
  fc.record({
    stop: fc.constantFrom(null, 'completed', 'max_iterations', 'interrupted'),
    records: fc.array(recordShape, { minLength: 1, maxLength: 8 }),
  }),
  { maxLength: 6 },
);

type Runs = typeof histories extends fc.Arbitrary<infer T> ? T : never;

function historyOf(runs: Runs): RunHistory[] {
  return runs.map((run, n) => ({
    workspace: n % 2 ? '/a' : '/b',
    run_id: `run-${n}`,
    stop_reason: run.stop,
    records: run.records.map((r, i) =>
      record(`run-${n}`, i + 1, {
        hat: r.hat,
        backend: r.backend,
        model: r.model,
        duration_ms: r.duration_ms,
        tokens: { input: r.total, output: 0, cache_read: 0, cache_write: 0, total: r.total },
        cost_usd: r.cost_usd,
        verdict: r.verdict,
        started_at: new Date(T0 + r.day * 86_400_000 + i).toISOString(),
      }),
    ),
  }));
}

const near = (a: number, b: number) => Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(b));

describe('aggregateStats (pure)', () => {
  it('totals equal the sum of the parts: per hat, per backend, per model and per run', () => {
    fc.assert(
      fc.property(histories, fc.option(fc.nat(30)), (runs, sinceDay) => {
        const since = sinceDay === null ? undefined : T0 + sinceDay * 86_400_000;
        const history = historyOf(runs);
        const s = aggregateStats({ workspaces: ['/a', '/b'], runs: history, tasks: [] }, since);
        const counted = history
          .flatMap((r) => r.records)
          .filter((r) => since === undefined || Date.parse(r.started_at) >= since);
        expect(s.iterations).toBe(counted.length);
        expect(
          near(
            s.cost_usd,
            counted.reduce((a, r) => a + (r.cost_usd ?? 0), 0),
          ),
        ).toBe(true);
        for (const groups of [s.by_hat, s.by_backend, s.by_model]) {
          expect(groups.reduce((a, g) => a + g.iterations, 0)).toBe(s.iterations);
          expect(groups.reduce((a, g) => a + g.tokens, 0)).toBe(s.tokens);
          expect(groups.reduce((a, g) => a + g.duration_ms, 0)).toBe(s.duration_ms);
          expect(
            near(
              groups.reduce((a, g) => a + g.cost_usd, 0),
              s.cost_usd,
            ),
          ).toBe(true);
          for (const g of groups) {
            expect(g.succeeded + g.failed).toBeLessThanOrEqual(g.iterations);
            expect(near(g.success_rate, g.succeeded / g.iterations)).toBe(true);
          }
        }
        expect(s.per_run.reduce((a, r) => a + r.iterations, 0)).toBe(s.iterations);
        expect(s.per_run.length).toBe(s.runs);
        expect(Object.values(s.stop_reasons).reduce((a, n) => a + n, 0)).toBe(s.runs);
        if (s.tasks.completed > 0)
          expect(near(s.tasks.cost_per_completed_usd ?? -1, s.cost_usd / s.tasks.completed)).toBe(true);
      }),
    );
  });

  it('counts closed tasks and their mean duration when tasks.jsonl has them; else completed runs are the tasks', () => {
    const runs = historyOf([
      {
        stop: 'completed',
        records: [
          {
            hat: null,
            backend: 'fake',
            model: null,
            duration_ms: 1000,
            total: 10,
            cost_usd: 0.3,
            verdict: 'complete',
            day: 0,
          },
        ],
      },
    ]);
    const task = (id: string, status: 'closed' | 'failed', startMin: number, closeMin: number) => ({
      id,
      title: id,
      status,
      priority: 3,
      blocked_by: [],
      created: new Date(T0).toISOString(),
      started: new Date(T0 + startMin * 60_000).toISOString(),
      closed: new Date(T0 + closeMin * 60_000).toISOString(),
    });
    const withTasks = aggregateStats({
      workspaces: ['/b'],
      runs,
      tasks: [task('a', 'closed', 0, 2), task('b', 'closed', 1, 5), task('c', 'failed', 0, 1)],
    });
    expect(withTasks.tasks).toEqual({
      source: 'tasks',
      completed: 2,
      failed: 1,
      average_duration_ms: 180_000,
      cost_per_completed_usd: 0.15,
    });
    const without = aggregateStats({ workspaces: ['/b'], runs, tasks: [] });
    expect(without.tasks).toEqual({
      source: 'runs',
      completed: 1,
      failed: 0,
      average_duration_ms: 1000,
      cost_per_completed_usd: 0.3,
    });
  });

  it('charts coverage in time order from the tests gate of each record', () => {
    const runs = historyOf([{ stop: 'completed', records: [] }]);
    runs[0] = {
      ...(runs[0] as RunHistory),
      records: [
        record('run-0', 2, {
          finished_at: '2026-11-02T00:00:00Z',
          gates: { tests: coverageOf(81.5, 'lcov.info') },
        }),
        record('run-0', 1, {
          finished_at: '2026-11-01T00:00:00Z',
          gates: { tests: coverageOf(70, 'coverage.json') },
        }),
      ],
    };
    expect(aggregateStats({ workspaces: ['/b'], runs, tasks: [] }).coverage.map((c) => c.pct)).toEqual([
      70, 81.5,
    ]);
  });
});

describe('estimate (pure)', () => {
  const limits = { max_iterations: 100 };

  it('a repeat of a run with the same figures lies inside the range estimated from it', () => {
    fc.assert(
      fc.property(histories, (runs) => {
        const history = historyOf(runs).filter((r) => r.records.length > 0);
        if (history.length === 0) return;
        const e = estimateFromHistory(history, limits);
        for (const run of history) {
          const n = run.records.length;
          expect(n).toBeGreaterThanOrEqual(e.iterations.low);
          expect(n).toBeLessThanOrEqual(e.iterations.high);
        }
        expect(e.iterations.low).toBeLessThanOrEqual(e.iterations.expected);
        expect(e.iterations.expected).toBeLessThanOrEqual(e.iterations.high);
        expect(e.tokens.low).toBeLessThanOrEqual(e.tokens.expected + 1e-6);
        expect(e.tokens.expected).toBeLessThanOrEqual(e.tokens.high + 1e-6);
        expect(e.based_on.kind).toBe('history');
      }),
    );
  });

  it('compares the range with each limit and names the one that stops the run', () => {
    expect(limitVerdict({ low: 5, expected: 8, high: 12 }, 20)).toBe('within');
    expect(limitVerdict({ low: 5, expected: 8, high: 12 }, 10)).toBe('may_stop');
    expect(limitVerdict({ low: 5, expected: 8, high: 12 }, 8)).toBe('likely_stops');
    expect(limitVerdict({ low: 5, expected: 8, high: 12 }, 5)).toBe('stops');
    const e = estimateFromSize(
      {
        items: 4,
        itemsFrom: 'TODO.md',
        hats: 1,
        promptBytes: 400,
        price: { input: 3, output: 15, model: 'claude-sonnet-4-5' },
      },
      { max_iterations: 5, max_cost_usd: 1000 },
    );
    expect(e.iterations).toEqual({ low: 4, expected: 6, high: 12 });
    expect(e.limits.map((l) => [l.limit, l.verdict])).toEqual([
      ['max_iterations', 'likely_stops'],
      ['max_cost_usd', 'within'],
    ]);
    expect(e.stopped_by).toBe('max_iterations');
    expect(e.based_on.text).toContain("claude-sonnet-4-5's list price");
    // 4 items: 4 iterations of 10k + 100 prompt tokens at least, at $3 in / $15 out per million.
    expect(e.cost_usd?.low).toBeCloseTo((4 * 10_100 * (0.9 * 3 + 0.1 * 15)) / 1e6, 9);
  });
});
