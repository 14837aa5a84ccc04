import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUOTA_SLACK_MS, quotaWait } from '../../../../src/engine/decide/quota-wait.ts';

// Issue 36: a spent GitHub quota parks the run until its reset, within the run's max_runtime.

describe('quotaWait', () => {
  it('parks until the reset (and a second) when that is within the run, else stops saying when', () => {
    expect(quotaWait(1_000, 5_000, 60_000)).toEqual({ kind: 'park', until: 1_000 + 5_000 + QUOTA_SLACK_MS });
    expect(quotaWait(1_000, 3_600_000, 600_000)).toEqual({
      kind: 'stop',
      resetAt: 3_601_000,
      deadline: 601_000,
    });
  });

  it('parks exactly when the wait ends by the deadline; a park never ends before the reset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 41 }),
        fc.integer({ min: -10_000, max: 7_200_000 }),
        fc.integer({ min: 0, max: 14_400_000 }),
        (now, resetMs, left) => {
          const plan = quotaWait(now, resetMs, left);
          const reset = now + Math.max(0, resetMs);
          if (plan.kind === 'park') {
            expect(plan.until).toBeGreaterThan(reset);
            expect(plan.until).toBeLessThanOrEqual(now + left);
          } else {
            expect(reset + QUOTA_SLACK_MS).toBeGreaterThan(now + left);
            expect(plan).toEqual({ kind: 'stop', resetAt: reset, deadline: now + left });
          }
        },
      ),
    );
  });
});
