import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideAttempt,
  parseMeasurement,
  summarizeMeasurements,
  targetReached,
} from '../../../../src/engine/metric/metric-decision.ts';

const value = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
const values = fc.array(value, { minLength: 1, maxLength: 9 });
const direction = fc.constantFrom('min' as const, 'max' as const);
const minImprovement = fc.double({ min: 0, max: 100, noNaN: true, noDefaultInfinity: true });

describe('decideAttempt (metric keep or roll back)', () => {
  it('keeps only an improvement larger than both results’ spread and min_improvement', () => {
    fc.assert(
      fc.property(values, values, direction, minImprovement, (b, c, dir, min) => {
        const best = summarizeMeasurements(b);
        const cand = summarizeMeasurements(c);
        const d = decideAttempt(best, cand, { direction: dir, min_improvement: min });
        const gain = dir === 'min' ? best.value - cand.value : cand.value - best.value;
        expect(d.improvement).toBe(gain);
        expect(d.noise).toBe(Math.max(best.spread, cand.spread));
        expect(d.keep).toBe(gain > d.noise && gain > min);
      }),
    );
  });

  it('never keeps a result that is no better, nor one measured equal to the best', () => {
    fc.assert(
      fc.property(values, direction, (v, dir) => {
        const m = summarizeMeasurements(v);
        expect(decideAttempt(m, m, { direction: dir, min_improvement: 0 }).keep).toBe(false);
      }),
    );
  });

  it('is symmetric in direction: what min keeps, max keeps on the negated figures', () => {
    fc.assert(
      fc.property(values, values, minImprovement, (b, c, min) => {
        const asMin = decideAttempt(summarizeMeasurements(b), summarizeMeasurements(c), {
          direction: 'min',
          min_improvement: min,
        });
        const asMax = decideAttempt(
          summarizeMeasurements(b.map((x) => -x)),
          summarizeMeasurements(c.map((x) => -x)),
          { direction: 'max', min_improvement: min },
        );
        expect(asMax.keep).toBe(asMin.keep);
      }),
    );
  });

  it('rejects a noise-level improvement and keeps a real one (figures as the guide shows them)', () => {
    const best = summarizeMeasurements([101.5, 98.5, 100.2]);
    expect(best).toMatchObject({ value: 100.2, spread: 3 });
    const noisy = decideAttempt(best, summarizeMeasurements([100.5, 97.5, 99.2]), {
      direction: 'min',
      min_improvement: 0,
    });
    expect(noisy).toMatchObject({ keep: false });
    expect(noisy.why).toContain('within the noise');
    expect(
      decideAttempt(best, summarizeMeasurements([91.5, 88.5, 90.2]), { direction: 'min', min_improvement: 0 })
        .keep,
    ).toBe(true);
  });
});

describe('summarizeMeasurements', () => {
  it('takes the median and max − min', () => {
    fc.assert(
      fc.property(values, (v) => {
        const m = summarizeMeasurements(v);
        const sorted = [...v].sort((a, b) => a - b);
        expect(m.spread).toBe((sorted.at(-1) as number) - (sorted[0] as number));
        expect(m.value).toBeGreaterThanOrEqual(sorted[0] as number);
        expect(m.value).toBeLessThanOrEqual(sorted.at(-1) as number);
      }),
    );
    expect(summarizeMeasurements([4, 1, 3, 2]).value).toBe(2.5);
  });
});

describe('targetReached', () => {
  it('≤ target with min, ≥ target with max, never without a target', () => {
    expect(targetReached({ value: 80 }, { direction: 'min', target: 80 })).toBe(true);
    expect(targetReached({ value: 80.1 }, { direction: 'min', target: 80 })).toBe(false);
    expect(targetReached({ value: 0.9 }, { direction: 'max', target: 0.9 })).toBe(true);
    expect(targetReached({ value: 1e9 }, { direction: 'max', target: undefined })).toBe(false);
  });
});

describe('parseMeasurement', () => {
  it('reads the last match of the pattern’s group, or the JSON path', () => {
    expect(parseMeasurement('time: 3 ms\ntime: 4.5 ms\n', { pattern: 'time: ([0-9.]+) ms' })).toEqual({
      value: 4.5,
    });
    expect(parseMeasurement('{"runs":[{"ms":7}]}', { json_path: 'runs[0].ms' })).toEqual({ value: 7 });
  });

  it('says why a measurement failed', () => {
    expect(parseMeasurement('nothing', { pattern: 'x=(\\d+)' })).toEqual({
      error: 'no match for metric.pattern /x=(\\d+)/ in the output',
    });
    expect(parseMeasurement('not json', { json_path: 'a' })).toMatchObject({
      error: expect.stringContaining('not JSON'),
    });
    expect(parseMeasurement('{"a":{}}', { json_path: 'a.b' })).toMatchObject({
      error: expect.stringContaining('a.b is not in the output'),
    });
    expect(parseMeasurement('{"a":"fast"}', { json_path: 'a' })).toMatchObject({
      error: expect.stringContaining('not a number'),
    });
  });
});
