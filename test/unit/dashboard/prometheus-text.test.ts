import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyHistogram,
  escapeLabelValue,
  formatValue,
  observe,
  renderExposition,
} from '../../../src/dashboard/prometheus-text.ts';

/** Reads a label value back as Prometheus's parser does (the inverse of the escaping). */
function readLabelValue(text: string): string {
  return text.replace(/\\(\\|"|n)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

describe('Prometheus text format', () => {
  it('writes HELP and TYPE before the samples, labels quoted and escaped, one line per sample', () => {
    const text = renderExposition([
      {
        name: 'ralph_runs',
        help: 'runs\\states\nsecond "line"',
        type: 'gauge',
        samples: [
          { labels: { workspace: '/tmp/a "b"\\c\nd', state: 'running' }, value: 1 },
          { labels: {}, value: 0.25 },
        ],
      },
      { name: 'ralph_empty_total', help: 'none yet', type: 'counter', samples: [] },
    ]);
    expect(text).toBe(
      [
        '# HELP ralph_runs runs\\\\states\\nsecond "line"',
        '# TYPE ralph_runs gauge',
        'ralph_runs{workspace="/tmp/a \\"b\\"\\\\c\\nd",state="running"} 1',
        'ralph_runs 0.25',
        '# HELP ralph_empty_total none yet',
        '# TYPE ralph_empty_total counter',
        '',
      ].join('\n'),
    );
  });

  it('escaping a label value is reversible and leaves no raw line feed or lone quote', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (v) => {
        const e = escapeLabelValue(v);
        expect(e).not.toContain('\n');
        expect(e.replace(/\\\\/g, '').replace(/\\"/g, '')).not.toContain('"');
        expect(readLabelValue(e)).toBe(v);
      }),
    );
  });

  it('spells NaN and the infinities as the format does', () => {
    expect(
      [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 3, -0.5].map(formatValue),
    ).toEqual(['NaN', '+Inf', '-Inf', '3', '-0.5']);
  });

  it('a histogram: cumulative buckets up to le="+Inf", then _sum and _count', () => {
    const bounds = [1, 10];
    const h = emptyHistogram(bounds);
    for (const v of [0.5, 1, 2, 30]) observe(h, bounds, v);
    const text = renderExposition([
      {
        name: 'd_seconds',
        help: 'd',
        type: 'histogram',
        bounds,
        samples: [{ labels: { hat: 'x' }, value: h }],
      },
    ]);
    expect(text.split('\n').slice(2, -1)).toEqual([
      'd_seconds_bucket{hat="x",le="1"} 2',
      'd_seconds_bucket{hat="x",le="10"} 3',
      'd_seconds_bucket{hat="x",le="+Inf"} 4',
      'd_seconds_sum{hat="x"} 33.5',
      'd_seconds_count{hat="x"} 4',
    ]);
  });

  it('any observations: buckets never decrease, +Inf equals _count, _sum is their sum', () => {
    const bounds = [0.5, 2, 60, 600];
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 5000, noNaN: true }), { maxLength: 50 }), (values) => {
        const h = emptyHistogram(bounds);
        for (const v of values) observe(h, bounds, v);
        const lines = renderExposition([
          { name: 'h', help: 'h', type: 'histogram', bounds, samples: [{ labels: {}, value: h }] },
        ]).split('\n');
        const buckets = lines.filter((l) => l.startsWith('h_bucket')).map((l) => Number(l.split(' ')[1]));
        expect(buckets).toHaveLength(bounds.length + 1);
        for (let i = 1; i < buckets.length; i++)
          expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1] as number);
        expect(buckets.at(-1)).toBe(values.length);
        expect(lines).toContain(`h_count ${values.length}`);
        const sum = Number(lines.find((l) => l.startsWith('h_sum'))?.split(' ')[1]);
        expect(sum).toBeCloseTo(
          values.reduce((a, b) => a + b, 0),
          6,
        );
        for (const [i, bound] of bounds.entries())
          expect(buckets[i]).toBe(values.filter((v) => v <= bound).length);
      }),
    );
  });

  it('refuses what Prometheus would reject: a bad metric or label name, a repeated family, le on a histogram', () => {
    const gauge = (name: string, labels: Record<string, string> = {}) => ({
      name,
      help: '',
      type: 'gauge' as const,
      samples: [{ labels, value: 1 }],
    });
    expect(() => renderExposition([gauge('ralph-runs')])).toThrow(/metric name/);
    expect(() => renderExposition([gauge('ok', { 'a-b': '1' })])).toThrow(/label name/);
    expect(() => renderExposition([gauge('ok', { __name: '1' })])).toThrow(/label name/);
    expect(() => renderExposition([gauge('ok'), gauge('ok')])).toThrow(/twice/);
    const h = { name: 'h', help: '', type: 'histogram' as const, bounds: [1] };
    expect(() =>
      renderExposition([{ ...h, samples: [{ labels: { le: '1' }, value: emptyHistogram([1]) }] }]),
    ).toThrow(/le is reserved/);
    expect(() => renderExposition([{ ...h, bounds: [2, 1], samples: [] }])).toThrow(/ascend/);
  });
});
