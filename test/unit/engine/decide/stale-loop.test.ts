import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STALE_REPEATS } from '../../../../src/engine/decide/event-decisions.ts';
import {
  nextStaleCount,
  type StaleCount,
  type StaleInput,
} from '../../../../src/engine/decide/stale-loop.ts';

const START: StaleCount = { last_signature: null, signature_repeats: 0 };

/** Runs the count over iterations; the index of the first stale one, or -1. */
function firstStale(iterations: readonly StaleInput[]): number {
  let count = START;
  for (const [i, it] of iterations.entries()) {
    const next = nextStaleCount(count, it);
    if (next.stale) return i;
    count = next;
  }
  return -1;
}

const same = (worked: boolean): StaleInput => ({ signature: 'builder|build.done="x"', idle: false, worked });

describe('nextStaleCount', () => {
  it('the same events three times in a row without work is stale, on the third', () => {
    expect(firstStale([same(false), same(false), same(false)])).toBe(STALE_REPEATS - 1);
  });

  it('the same events three times while each iteration commits or changes files is not stale (issue #234)', () => {
    expect(firstStale(Array.from({ length: 10 }, () => same(true)))).toBe(-1);
  });

  it('work in between starts the count over', () => {
    expect(firstStale([same(false), same(false), same(true), same(false), same(false)])).toBe(-1);
    expect(firstStale([same(false), same(true), same(false), same(false), same(false)])).toBe(4);
  });

  it('an iteration that published nothing leaves the count; an idle one clears it', () => {
    const quiet: StaleInput = { signature: null, idle: false, worked: false };
    expect(firstStale([same(false), quiet, same(false), quiet, same(false)])).toBe(4);
    const idle: StaleInput = { signature: null, idle: true, worked: false };
    expect(firstStale([same(false), same(false), idle, same(false), same(false)])).toBe(-1);
  });

  const input = fc.record({
    signature: fc.option(fc.constantFrom('a|x=1', 'a|x=2', 'b|x=1'), { nil: null }),
    idle: fc.boolean(),
    worked: fc.boolean(),
  });

  it('property: never stale on an iteration that worked or idled, and stale exactly when the last STALE_REPEATS publishing turns match without work', () => {
    fc.assert(
      fc.property(fc.array(input, { maxLength: 30 }), (iterations) => {
        let count = START;
        // The reference: publishing turns since the last work or idle turn, as signatures.
        let run: string[] = [];
        for (const it of iterations) {
          const next = nextStaleCount(count, it);
          if (it.idle || it.worked) {
            run = [];
            expect(next.stale).toBe(false);
          } else if (it.signature !== null) {
            run.push(it.signature);
            const tail = run.slice(-STALE_REPEATS);
            const expected = tail.length === STALE_REPEATS && tail.every((s) => s === it.signature);
            expect(next.stale).toBe(expected);
          } else {
            expect(next.stale).toBe(false);
          }
          expect(next.signature_repeats).toBeGreaterThanOrEqual(0);
          count = next;
        }
      }),
    );
  });
});
