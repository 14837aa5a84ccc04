import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alreadyHandled, trustedOffset, UPDATE_KEPT_MS } from '../../../../src/human/telegram/bot-state.ts';

const NOW = Date.parse('2026-11-29T04:00:00Z');
const at = (agoMs: number) => new Date(NOW - agoMs).toISOString();

describe('trustedOffset', () => {
  it('trusts an offset moved within the last day, never an older one, one without a time or none', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 0, max: 30 * UPDATE_KEPT_MS }),
        (offset, ago) => {
          const got = trustedOffset({ offset, offset_at: at(ago) }, NOW);
          expect(got).toBe(ago < UPDATE_KEPT_MS ? offset : undefined);
        },
      ),
    );
    expect(trustedOffset({ offset: 7 }, NOW)).toBeUndefined();
    expect(trustedOffset({ offset: 0, offset_at: at(0) }, NOW)).toBeUndefined();
    expect(trustedOffset({ offset: 7, offset_at: 'yesterday-ish' }, NOW)).toBeUndefined();
    expect(trustedOffset({ offset: 7, offset_at: at(-2 * UPDATE_KEPT_MS) }, NOW)).toBeUndefined();
  });

  it('skips an update only below a trusted offset: a restarted id after a stale one is applied', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2000 }), (offset, id) => {
        expect(alreadyHandled(id, { offset, offset_at: at(60_000) }, NOW)).toBe(id < offset);
        expect(alreadyHandled(id, { offset, offset_at: at(8 * UPDATE_KEPT_MS) }, NOW)).toBe(false);
      }),
    );
  });
});
