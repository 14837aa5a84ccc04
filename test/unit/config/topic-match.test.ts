import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  overlapWitness,
  patternsOverlap,
  topicMatches,
  triggerSpecificity,
} from '../../../src/config/topic-match.ts';

const literal = fc.constantFrom('a', 'b', 'work', 'propose');
const topicArb = fc.array(literal, { minLength: 1, maxLength: 3 }).map((s) => s.join('.'));
const patternArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant('*') },
  {
    weight: 6,
    arbitrary: fc
      .array(fc.oneof(literal, fc.constant('*')), { minLength: 1, maxLength: 3 })
      .map((s) => s.join('.')),
  },
);

describe('topicMatches', () => {
  it.each([
    ['work.propose', 'work.propose', true],
    ['work.propose', 'work.finish', false],
    ['work.*', 'work.propose', true],
    ['work.*', 'work', false],
    ['work.*', 'work.a.b', false],
    ['work.*', 'board.scan', false],
    ['*.done', 'build.done', true],
    ['*.done', 'build.done.x', false],
    ['a.*.c', 'a.b.c', true],
    ['*', 'work', true],
    ['*', 'work.propose', true],
    ['*', 'a.b.c.d', true],
    ['work*', 'workers', false],
    ['work*', 'work*', true],
  ])('%s ~ %s → %s', (pattern, topic, expected) => {
    expect(topicMatches(pattern, topic)).toBe(expected);
  });

  it('property: a pattern without `*` matches only itself', () => {
    fc.assert(
      fc.property(topicArb, topicArb, (p, t) => {
        expect(topicMatches(p, t)).toBe(p === t);
      }),
    );
  });

  it('property: a matching pattern has the topic segment count and its literal segments (or is `*`)', () => {
    fc.assert(
      fc.property(patternArb, topicArb, (p, t) => {
        const ps = p.split('.');
        const ts = t.split('.');
        const expected =
          p === '*' || (ps.length === ts.length && ps.every((s, i) => s === '*' || s === ts[i]));
        expect(topicMatches(p, t)).toBe(expected);
      }),
    );
  });
});

describe('patternsOverlap', () => {
  it.each([
    ['work.*', 'work.propose', true],
    ['work.*', '*.propose', true],
    ['work.*', 'board.*', false],
    ['work.*', 'work.*.x', false],
    ['a.*.c', 'a.b.*', true],
    ['*', 'anything.at.all', true],
    ['x', '*', true],
    ['a', 'b', false],
    ['a', 'a', true],
  ])('%s / %s → %s', (a, b, expected) => {
    expect(patternsOverlap(a, b)).toBe(expected);
    expect(patternsOverlap(b, a)).toBe(expected);
  });

  it('property: symmetric, and true exactly when the witness topic matches both', () => {
    fc.assert(
      fc.property(patternArb, patternArb, (a, b) => {
        expect(patternsOverlap(a, b)).toBe(patternsOverlap(b, a));
        const witness = overlapWitness(a, b);
        expect(witness !== undefined).toBe(patternsOverlap(a, b));
        if (witness !== undefined) {
          expect(topicMatches(a, witness)).toBe(true);
          expect(topicMatches(b, witness)).toBe(true);
        }
      }),
    );
  });

  it('property: a topic matching both patterns implies they overlap', () => {
    fc.assert(
      fc.property(patternArb, patternArb, topicArb, (a, b, t) => {
        if (topicMatches(a, t) && topicMatches(b, t)) expect(patternsOverlap(a, b)).toBe(true);
      }),
    );
  });
});

describe('triggerSpecificity', () => {
  it('ranks exact over a `*` segment over the catch-all', () => {
    expect(triggerSpecificity('work.propose')).toBe(2);
    expect(triggerSpecificity('work.*')).toBe(1);
    expect(triggerSpecificity('*.*')).toBe(0);
    expect(triggerSpecificity('*')).toBe(-1);
  });

  it('property: for a topic both match, the exact topic is strictly more specific than any pattern', () => {
    fc.assert(
      fc.property(patternArb, topicArb, (p, t) => {
        if (p !== t && topicMatches(p, t))
          expect(triggerSpecificity(t)).toBeGreaterThan(triggerSpecificity(p));
      }),
    );
  });
});
