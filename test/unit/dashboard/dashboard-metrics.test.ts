import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addRecord,
  DURATION_BUCKETS,
  emptyRunTotals,
  metricFamilies,
  stopsByWorkspace,
} from '../../../src/dashboard/metrics.ts';
import { renderExposition } from '../../../src/dashboard/prometheus-text.ts';
import type { IterationRecord } from '../../../src/state/iteration-record-shape.ts';

/** The fields of a record the metrics read; the rest is not looked at. */
function record(o: {
  hat: string | null;
  backend: string;
  verdict: string;
  cost: number | null;
  ms: number;
  input: number;
  output: number;
  review?: number;
}): IterationRecord {
  return {
    hat: o.hat,
    backend: o.backend,
    verdict: o.verdict,
    cost_usd: o.cost,
    duration_ms: o.ms,
    tokens: { input: o.input, output: o.output, cache_read: 0, cache_write: 0, total: o.input + o.output },
    ...(o.review === undefined
      ? {}
      : { review: { approved: true, findings: [], round: 1, cost_usd: o.review, tokens: 1 } }),
  } as unknown as IterationRecord;
}

/** `name{labels} value` lines of an exposition as [series, value]. */
function samples(text: string): Map<string, number> {
  return new Map(
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
  );
}

const arbRecord = fc
  .record({
    hat: fc.constantFrom(null, 'builder', 'reviewer'),
    backend: fc.constantFrom('claude', 'codex'),
    verdict: fc.constantFrom('success', 'failure', 'complete'),
    cost: fc.option(fc.double({ min: 0, max: 5, noNaN: true }), { nil: null }),
    ms: fc.integer({ min: 0, max: 7_200_000 }),
    input: fc.nat(100_000),
    output: fc.nat(100_000),
  })
  .map(record);

describe('dashboard /metrics: the families of a snapshot', () => {
  it('totals over hats, backends and verdicts equal the sums over the records', () => {
    fc.assert(
      fc.property(fc.array(arbRecord, { maxLength: 40 }), (records) => {
        const totals = emptyRunTotals();
        for (const r of records) addRecord(totals, r);
        const text = renderExposition(
          metricFamilies({
            version: '1.2.3',
            node: 'v20',
            workspaces: [{ workspace: '/w', group: 'completed', updatedAt: 5, totals, stops: {} }],
          }),
        );
        const all = [...samples(text)];
        const sum = (prefix: string) =>
          all.filter(([k]) => k.startsWith(prefix)).reduce((a, [, v]) => a + v, 0);
        expect(sum('ralph_iterations_total{')).toBe(records.length);
        expect(sum('ralph_cost_usd_total{')).toBeCloseTo(
          records.reduce((a, r) => a + (r.cost_usd ?? 0), 0),
          9,
        );
        expect(sum('ralph_tokens_total{')).toBe(
          records.reduce((a, r) => a + r.tokens.input + r.tokens.output, 0),
        );
        expect(sum('ralph_iteration_duration_seconds_count{')).toBe(records.length);
      }),
    );
  });

  it('labels each series by workspace, hat, backend (and verdict, kind); one state of the run is 1', () => {
    const totals = emptyRunTotals();
    addRecord(
      totals,
      record({
        hat: 'builder',
        backend: 'claude',
        verdict: 'success',
        cost: 0.5,
        ms: 2500,
        input: 10,
        output: 3,
        review: 0.25,
      }),
    );
    addRecord(
      totals,
      record({
        hat: null,
        backend: 'codex',
        verdict: 'complete',
        cost: null,
        ms: 4_000_000,
        input: 1,
        output: 1,
      }),
    );
    const s = samples(
      renderExposition(
        metricFamilies({
          version: '1.2.3',
          node: 'v20',
          workspaces: [
            { workspace: '/w', group: 'stopped', updatedAt: 1700000000, totals, stops: { max_cost: 2 } },
          ],
        }),
      ),
    );
    const last = DURATION_BUCKETS.at(-1);
    const expected: Record<string, number> = {
      'ralph_build_info{version="1.2.3",node="v20"}': 1,
      'ralph_runs{workspace="/w",state="stopped"}': 1,
      'ralph_runs{workspace="/w",state="running"}': 0,
      'ralph_run_updated_timestamp_seconds{workspace="/w"}': 1700000000,
      'ralph_iterations_total{workspace="/w",hat="builder",backend="claude",verdict="success"}': 1,
      'ralph_iterations_total{workspace="/w",hat="",backend="codex",verdict="complete"}': 1,
      'ralph_tokens_total{workspace="/w",hat="builder",backend="claude",kind="output"}': 3,
      'ralph_cost_usd_total{workspace="/w",hat="builder",backend="claude"}': 0.5,
      'ralph_cost_usd_total{workspace="/w",hat="",backend="codex"}': 0,
      'ralph_review_cost_usd_total{workspace="/w"}': 0.25,
      'ralph_iteration_duration_seconds_bucket{workspace="/w",hat="builder",backend="claude",le="1"}': 0,
      'ralph_iteration_duration_seconds_bucket{workspace="/w",hat="builder",backend="claude",le="5"}': 1,
      // Past the last bound (an hour): only in +Inf.
      [`ralph_iteration_duration_seconds_bucket{workspace="/w",hat="",backend="codex",le="${last}"}`]: 0,
      'ralph_iteration_duration_seconds_bucket{workspace="/w",hat="",backend="codex",le="+Inf"}': 1,
      'ralph_iteration_duration_seconds_sum{workspace="/w",hat="",backend="codex"}': 4000,
      'ralph_stops_total{workspace="/w",reason="max_cost"}': 2,
    };
    for (const [series, value] of Object.entries(expected))
      expect([series, s.get(series)]).toEqual([series, value]);
  });

  it('stops come from the registry end lines: a start line never counts, even one carrying an old reason', () => {
    const line = (workspace: string, status: string, stop_reason: string | null) => ({
      workspace,
      status,
      stop_reason,
    });
    const stops = stopsByWorkspace([
      line('/a', 'running', null),
      line('/a', 'stopped', 'max_iterations'),
      line('/a', 'running', 'max_iterations'),
      line('/a', 'completed', 'completed'),
      line('/b', 'running', null),
      line('/b', 'stopped', 'max_iterations'),
      line('/a', 'running', null),
      line('/a', 'stopped', 'max_iterations'),
    ]);
    expect(Object.fromEntries(stops)).toEqual({
      '/a': { max_iterations: 2, completed: 1 },
      '/b': { max_iterations: 1 },
    });
  });
});
