import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addSample,
  MAX_SAMPLES,
  projectedOverrun,
  projectNext,
  type UsageSample,
} from '../../../../src/engine/decide/budget-projection.ts';
import type { Limits } from '../../../../src/engine/decide/limits.ts';

const sample = fc.record({
  hat: fc.constantFrom(null, 'planner', 'builder'),
  backend: fc.constantFrom('claude', 'codex'),
  costUsd: fc.double({ min: 0, max: 10, noNaN: true }),
  tokens: fc.integer({ min: 0, max: 1_000_000 }),
});
const limits = (maxCostUsd: number | undefined, maxTokens: number | undefined): Limits => ({
  maxIterations: 100,
  maxRuntimeMs: undefined,
  maxCostUsd,
  maxTokens,
  maxConsecutiveFailures: 3,
});

describe('budget projection', () => {
  it('property: the projection lies between the smallest and largest sample it averages', () => {
    fc.assert(
      fc.property(fc.array(sample, { minLength: 1, maxLength: 20 }), sample, (samples, next) => {
        const p = projectNext(samples, next);
        expect(p).toBeDefined();
        const same = samples.filter((s) => s.hat === next.hat && s.backend === next.backend).slice(-3);
        const pool = same.length > 0 ? same : samples.slice(-3);
        const costs = pool.map((s) => s.costUsd);
        expect(p?.costUsd).toBeGreaterThanOrEqual(Math.min(...costs) - 1e-9);
        expect(p?.costUsd).toBeLessThanOrEqual(Math.max(...costs) + 1e-9);
      }),
    );
  });

  it('property: an overrun is reported exactly when spent + projected crosses a limit', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.double({ min: 0.01, max: 5, noNaN: true }),
        fc.double({ min: 0.01, max: 20, noNaN: true }),
        (spent, projected, max) => {
          const c = { iterations: 1, elapsedMs: 0, costUsd: spent, tokens: 0, consecutiveFailures: 0 };
          const over = projectedOverrun(c, limits(max, undefined), { costUsd: projected, tokens: 0 });
          expect(over !== undefined).toBe(spent + projected > max);
        },
      ),
    );
  });

  it('prefers the same hat and backend, knows nothing before the first iteration, keeps a bounded window', () => {
    const s = (hat: string | null, costUsd: number): UsageSample => ({
      hat,
      backend: 'claude',
      costUsd,
      tokens: 0,
    });
    expect(projectNext([], { hat: null, backend: 'claude' })).toBeUndefined();
    const samples = [s('planner', 1), s('builder', 0.1), s('builder', 0.3)];
    expect(projectNext(samples, { hat: 'planner', backend: 'claude' })?.costUsd).toBe(1);
    expect(projectNext(samples, { hat: 'builder', backend: 'claude' })?.costUsd).toBeCloseTo(0.2);
    let kept: UsageSample[] = [];
    for (let i = 0; i < 30; i++) kept = addSample(kept, s(null, i));
    expect(kept).toHaveLength(MAX_SAMPLES);
    expect(kept.at(-1)?.costUsd).toBe(29);
  });
});
