import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SummedMeter, UsageMeter } from '../../../src/agent/usage-meter.ts';

// A wave's usage (docs/guide/agent-waves.md): its members' meters read as one.

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** A member's meter after a final result with this usage and cost (undefined: none reported). */
function member(input: number, output: number, costUsd: number | undefined): UsageMeter {
  const m = new UsageMeter();
  m.add({ type: 'result', text: '', isError: false, usage: usage(input, output), costUsd });
  return m;
}

describe('SummedMeter', () => {
  it('sums the parts’ tokens and reported costs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ input: fc.nat(1e6), output: fc.nat(1e6), cost: fc.nat(1000) }), {
          minLength: 1,
          maxLength: 6,
        }),
        (parts) => {
          const sum = new SummedMeter(parts.map((p) => member(p.input, p.output, p.cost / 100)));
          const total = parts.reduce((a, p) => a + p.input + p.output, 0);
          expect(sum.totals().total).toBe(total);
          expect(sum.spentUsd()).toBeCloseTo(
            parts.reduce((a, p) => a + p.cost / 100, 0),
            9,
          );
          expect(sum.costIsEstimate()).toBe(false);
        },
      ),
    );
  });

  it('reads its parts live: a part added later counts', () => {
    const parts: UsageMeter[] = [member(10, 5, 0.1)];
    const sum = new SummedMeter(parts);
    parts.push(member(20, 0, 0.2));
    expect(sum.totals().total).toBe(35);
    expect(sum.spentUsd()).toBeCloseTo(0.3, 9);
  });

  it('has no cost when no part has one, and no usage without parts', () => {
    const none = new SummedMeter([]);
    expect(none.totals().total).toBe(0);
    expect(none.spentUsd()).toBeUndefined();
    expect(none.contextPct()).toBeNull();
  });
});
