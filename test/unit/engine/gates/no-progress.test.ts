import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type IterationProgress,
  madeNoProgress,
  nextStreak,
  noProgressReached,
} from '../../../../src/engine/gates/work-progress.ts';

const progress = fc.record({
  files: fc.constantFrom(true, false, null),
  commit: fc.boolean(),
  tasks: fc.boolean(),
  events: fc.boolean(),
});

describe('the no-progress rule', () => {
  it('property: the stop comes exactly after max non-idle iterations in a row that moved nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ p: progress, idle: fc.boolean() }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 6 }),
        (iterations, max) => {
          let streak = 0;
          let quietInARow = 0;
          for (const { p, idle } of iterations) {
            streak = nextStreak(streak, p as IterationProgress, idle);
            if (!idle) quietInARow = madeNoProgress(p as IterationProgress) ? quietInARow + 1 : 0;
            expect(streak).toBe(quietInARow);
            expect(noProgressReached(streak, max)).toBe(max > 0 && quietInARow >= max);
          }
        },
      ),
    );
  });

  it('unknown file changes (a huge workspace outside git) count as movement', () => {
    expect(madeNoProgress({ files: null, commit: false, tasks: false, events: false })).toBe(false);
    expect(madeNoProgress({ files: false, commit: false, tasks: false, events: false })).toBe(true);
    expect(noProgressReached(99, 0)).toBe(false);
  });
});
