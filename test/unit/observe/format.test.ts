import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatNumber } from '../../../src/observe/format.ts';

describe('formatNumber', () => {
  it('groups digits as en-US does, for every number', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeNat(), fc.maxSafeInteger(), fc.double()), (n) => {
        expect(formatNumber(n)).toBe(n.toLocaleString('en-US'));
      }),
    );
    for (const n of [0, -0, 999, 1000, -1000, 1_234_567, 2 ** 53, 1e21])
      expect(formatNumber(n)).toBe(n.toLocaleString('en-US'));
  });
});
