import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketRanges, sparkline } from '../../../src/cli/inspect/metric-sparkline.ts';
import { metricStatsText } from '../../../src/cli/inspect/metric-stats-text.ts';
import { unicodeOutput } from '../../../src/cli/io.ts';
import { METRIC_BOX, metricChartGeometry, metricChartSvg } from '../../../src/dashboard/metric-chart.ts';
import { type MetricAttemptLine, metricSeries } from '../../../src/observe/stats/metric-series.ts';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const at = (i: number) => new Date(T0 + i * 60_000).toISOString();

const baselineLine = (value: number, o: Partial<MetricAttemptLine> = {}): MetricAttemptLine => ({
  run_id: 'run-1',
  at: at(0),
  iteration: 0,
  kept: true,
  verdict: 'baseline',
  values: [value],
  value,
  spread: 0,
  commit: 'c0',
  command: 'node bench.js',
  direction: 'min',
  target: null,
  ...o,
});

/** Attempt `i` (1-based) of run-1: measured `value` (null: the measurement failed). */
const attempt = (i: number, value: number | null, kept: boolean): MetricAttemptLine => ({
  run_id: 'run-1',
  at: at(i),
  iteration: i,
  kept,
  verdict: kept ? 'kept' : value === null ? 'measure_failed' : 'not_kept',
  idea: `idea ${i}`,
  ...(value === null ? {} : { values: [value], value, spread: 0 }),
  commit: `c${i}`,
});

const finite = fc.double({ min: -1e6, max: 1e6, noNaN: true });
const attempts = fc.array(fc.record({ value: fc.option(finite), kept: fc.boolean() }), {
  minLength: 1,
  maxLength: 500,
});

function seriesOf(
  base: number,
  xs: { value: number | null; kept: boolean }[],
  o: Partial<MetricAttemptLine> = {},
) {
  const lines = [baselineLine(base, o), ...xs.map((x, i) => attempt(i + 1, x.value, x.kept))];
  const [s] = metricSeries([{ workspace: '/w', lines }]);
  if (!s) throw new Error('no series');
  return s;
}

describe('metric series (pure)', () => {
  it('best so far never gets worse, in the metric direction, and the best is the last of it', () => {
    fc.assert(
      fc.property(
        finite,
        attempts,
        fc.constantFrom('min' as const, 'max' as const),
        (base, xs, direction) => {
          const s = seriesOf(base, xs, { direction });
          let prev = base;
          for (const p of s.points) {
            if (direction === 'min') expect(p.best_so_far).toBeLessThanOrEqual(prev);
            else expect(p.best_so_far).toBeGreaterThanOrEqual(prev);
            prev = p.best_so_far;
          }
          expect(s.best.value).toBe(prev);
          expect(s.improvement).toBeGreaterThanOrEqual(0);
          expect(s.kept + s.rolled_back).toBe(s.attempts);
          expect(s.points.map((p) => p.attempt)).toEqual(xs.map((_, i) => i + 1));
        },
      ),
    );
  });

  it('counts kept, rolled back and unmeasured attempts; the improvement in units and percent', () => {
    const s = seriesOf(100, [
      { value: 99, kept: false },
      { value: 90, kept: true },
      { value: null, kept: false },
      { value: 80, kept: true },
    ]);
    expect(s).toMatchObject({ attempts: 4, kept: 2, rolled_back: 2, measure_failed: 1, improvement: 20 });
    expect(s.improvement_pct).toBeCloseTo(20, 10);
    expect(s.best).toEqual({ value: 80, iteration: 4, commit: 'c4' });
    expect(s.points.map((p) => p.best_so_far)).toEqual([100, 90, 90, 80]);
  });

  it('a window keeps the baseline as reference and counts kept attempts before it in best so far', () => {
    const lines = [baselineLine(100), attempt(1, 90, true), attempt(2, 95, false), attempt(3, 85, true)];
    const [s] = metricSeries([{ workspace: '/w', lines }], Date.parse(at(2)));
    expect(s?.points.map((p) => [p.attempt, p.best_so_far])).toEqual([
      [2, 90],
      [3, 85],
    ]);
    expect(s).toMatchObject({ attempts: 2, kept: 1, baseline: { value: 100 } });
    expect(metricSeries([{ workspace: '/w', lines }], Date.parse(at(9)))).toEqual([]);
  });

  it('a file without the direction on its baseline line takes it from the first kept attempt', () => {
    const s = seriesOf(10, [{ value: 12, kept: true }], { direction: undefined, command: undefined });
    expect(s).toMatchObject({ direction: 'max', command: null, improvement: 2 });
  });

  it('one series per run, oldest first; a run without its baseline line is left out', () => {
    const lines = [
      baselineLine(5, { run_id: 'b', at: at(10) }),
      baselineLine(7, { run_id: 'a', at: at(1) }),
      { ...attempt(1, 3, true), run_id: 'orphan' },
    ];
    expect(metricSeries([{ workspace: '/w', lines }]).map((s) => s.run_id)).toEqual(['a', 'b']);
  });
});

describe('sparkline (pure)', () => {
  it('buckets cover every attempt once, in order, in at most `width` columns', () => {
    fc.assert(
      fc.property(fc.nat(2000), fc.integer({ min: 1, max: 200 }), (n, width) => {
        const b = bucketRanges(n, width);
        expect(b.length).toBe(Math.min(n, width));
        let next = 0;
        for (const { start, end } of b) {
          expect(start).toBe(next);
          expect(end).toBeGreaterThan(start);
          next = end;
        }
        expect(next).toBe(n);
      }),
    );
  });

  it('one character per column, within the width, blocks or digits; x where nothing was measured', () => {
    fc.assert(
      fc.property(finite, attempts, fc.boolean(), (base, xs, unicode) => {
        const s = seriesOf(base, xs);
        const line = sparkline(s.points, base, { width: 64, unicode });
        const chars = [...line.values];
        expect(chars.length).toBe(Math.min(64, xs.length));
        expect(line.kept.length).toBeLessThanOrEqual(chars.length);
        for (const c of chars) expect(unicode ? '▁▂▃▄▅▆▇█×' : '12345678x').toContain(c);
      }),
    );
    const s = seriesOf(100, [
      { value: 100, kept: false },
      { value: null, kept: false },
      { value: 50, kept: true },
    ]);
    expect(sparkline(s.points, 100, { width: 64, unicode: true })).toMatchObject({
      values: '█×▁',
      kept: '  ^',
      low: 50,
      high: 100,
    });
    expect(sparkline(s.points, 100, { width: 64, unicode: false }).values).toBe('8x1');
  });

  it('`ralph stats` text: 500 attempts fit in 80 columns, bucketed, and the latest 3 runs are shown', () => {
    const xs = Array.from({ length: 500 }, (_, i) => ({ value: 1000 - i, kept: i % 7 === 0 }));
    const s = seriesOf(1000, xs);
    const text = metricStatsText([s, s, s, s], true, false);
    expect(text).toContain('… 1 earlier metric run (ralph stats --json has them)');
    expect(text).toContain('a column: up to 8 attempts (the mean of their values)');
    expect(text).toContain('attempts 1–500');
    expect(text).toContain('(min: lower is better), run run-1\n');
    expect(metricStatsText([s], false, true)).toContain('run run-1 in /w\n');
    expect(metricStatsText([], true, false)).toBe('');
    for (const line of text.split('\n').filter((l) => !l.startsWith('metric ')))
      expect(line.length).toBeLessThanOrEqual(80);
  });
});

describe('metric chart geometry (pure)', () => {
  it('every point, the best-so-far line, the baseline and the target are inside the viewBox', () => {
    fc.assert(
      fc.property(finite, attempts, fc.option(finite), (base, xs, target) => {
        const s = seriesOf(base, xs, { target });
        const g = metricChartGeometry(s);
        const inside = (x: number, y: number) => {
          expect(x).toBeGreaterThanOrEqual(g.radius);
          expect(x).toBeLessThanOrEqual(METRIC_BOX.width - g.radius);
          expect(y).toBeGreaterThanOrEqual(g.radius);
          expect(y).toBeLessThanOrEqual(METRIC_BOX.height - g.radius);
        };
        for (const p of g.points) inside(p.x, p.y);
        for (const p of g.best) inside(p.x, p.y);
        inside(METRIC_BOX.pad, g.baselineY);
        if (g.targetY !== null) inside(METRIC_BOX.pad, g.targetY);
        expect(g.points.length + g.unmeasured.length).toBe(xs.length);
        expect(g.best.length).toBe(xs.length + 1);
      }),
      // Found by this property: a subnormal baseline alone (5% of it is 0) made a zero span and NaN.
      { examples: [[5e-324, [{ value: null, kept: false }], null]] },
    );
  });

  it('the SVG has a point per measured attempt, with 1 attempt and with 500, and says what it shows', () => {
    const one = metricChartSvg(seriesOf(10, [{ value: 9, kept: true }], { target: 5 }), 'm');
    expect(one.match(/<circle class="kept"/g)).toHaveLength(1);
    expect(one).toContain('aria-labelledby="m-title m-desc"');
    expect(one).toContain('<title id="m-title">node bench.js per attempt (min: lower is better)</title>');
    expect(one).toContain('<line class="target"');
    const xs = Array.from({ length: 500 }, (_, i) => ({
      value: i % 3 ? 100 - i / 10 : null,
      kept: i % 5 === 0,
    }));
    const many = metricChartSvg(seriesOf(100, xs), 'n');
    const measured = xs.filter((x) => x.value !== null);
    expect(many.match(/<circle /g)).toHaveLength(measured.length);
    expect(many.match(/<path class="unmeasured"/g)).toHaveLength(xs.length - measured.length);
    expect(many).not.toContain('class="target"');
  });
});

describe('unicodeOutput', () => {
  const tty = { color: true, env: { LANG: 'en_US.UTF-8' } };
  it('blocks only on a colour terminal with a UTF-8 locale, outside CI and TERM=dumb', () => {
    expect(unicodeOutput(tty)).toBe(true);
    expect(unicodeOutput({ ...tty, color: false })).toBe(false);
    expect(unicodeOutput({ color: true, env: { ...tty.env, NO_COLOR: '1' } })).toBe(false);
    expect(unicodeOutput({ color: true, env: { ...tty.env, CI: 'true' } })).toBe(false);
    expect(unicodeOutput({ color: true, env: { ...tty.env, TERM: 'dumb' } })).toBe(false);
    expect(unicodeOutput({ color: true, env: { LANG: 'C' } })).toBe(false);
    expect(unicodeOutput({ color: true, env: { LANG: 'C', LC_ALL: 'C.utf8' } })).toBe(true);
  });
});
