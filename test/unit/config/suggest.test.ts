import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { knownKeysAt } from '../../../src/config/config-issues.ts';
import { configSchema } from '../../../src/config/schema.ts';
import { closestMatch, editDistance } from '../../../src/config/suggest.ts';

const SCHEMA_EVENT_LOOP_KEYS = knownKeysAt(configSchema, ['event_loop']);

const EVENT_LOOP_KEYS = [
  'prompt_file',
  'prompt',
  'completion_promise',
  'max_iterations',
  'max_runtime_seconds',
  'max_cost_usd',
  'max_tokens',
  'max_consecutive_failures',
  'persistent',
  'starting_event',
];

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['flaw', 'lawn', 2],
    ['max_iteratons', 'max_iterations', 1],
    ['abc', 'abc', 0],
    ['abc', 'acb', 2],
  ])('editDistance(%j, %j) = %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });

  const small = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 8 });

  it('property: symmetric', () => {
    fc.assert(
      fc.property(small, small, (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
      }),
    );
  });

  it('property: zero iff equal', () => {
    fc.assert(
      fc.property(small, small, (a, b) => {
        expect(editDistance(a, b) === 0).toBe(a === b);
      }),
    );
  });

  it('property: triangle inequality', () => {
    fc.assert(
      fc.property(small, small, small, (a, b, c) => {
        expect(editDistance(a, c)).toBeLessThanOrEqual(editDistance(a, b) + editDistance(b, c));
      }),
    );
  });

  it('property: bounded by the longer length and at least the length difference', () => {
    fc.assert(
      fc.property(small, small, (a, b) => {
        const d = editDistance(a, b);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
    );
  });

  it('property: one edit is distance 1', () => {
    fc.assert(
      fc.property(small, fc.nat(), fc.constantFrom('a', 'b', 'x'), (a, pos, ch) => {
        const i = a.length === 0 ? 0 : pos % (a.length + 1);
        const inserted = a.slice(0, i) + ch + a.slice(i);
        expect(editDistance(a, inserted)).toBe(1);
      }),
    );
  });
});

describe('knownKeysAt', () => {
  it('lists section keys, hat keys through the record, and nothing under a scalar', () => {
    expect(knownKeysAt(configSchema, [])).toEqual(
      expect.arrayContaining(['event_loop', 'cli', 'hats', 'tasks', 'memories', 'RObot']),
    );
    expect(SCHEMA_EVENT_LOOP_KEYS).toEqual(expect.arrayContaining(['max_iterations', 'persistent']));
    expect(knownKeysAt(configSchema, ['hats', 'any_hat'])).toEqual(
      expect.arrayContaining(['triggers', 'publishes', 'instructions']),
    );
    expect(knownKeysAt(configSchema, ['event_loop', 'max_iterations'])).toEqual([]);
    expect(knownKeysAt(configSchema, ['no_such_section'])).toEqual([]);
  });
});

describe('closestMatch', () => {
  it('suggests the closest key for typos', () => {
    expect(closestMatch('max_iteratons', EVENT_LOOP_KEYS)).toBe('max_iterations');
    expect(closestMatch('persistant', EVENT_LOOP_KEYS)).toBe('persistent');
    expect(closestMatch('completion_promis', EVENT_LOOP_KEYS)).toBe('completion_promise');
  });

  it('takes two swapped neighbours for the word they come from, over a nearer edit distance', () => {
    // Levenshtein puts `stats` (1) nearer than `status` (2); the swap is the likelier slip.
    expect(closestMatch('stauts', ['status', 'stats'])).toBe('status');
    expect(closestMatch('stast', ['status', 'stats'])).toBe('stats');
  });

  it('is case-insensitive but returns the candidate as spelled', () => {
    expect(closestMatch('robot', ['RObot', 'tasks'])).toBe('RObot');
    expect(closestMatch('MAX_TOKENS', EVENT_LOOP_KEYS)).toBe('max_tokens');
  });

  it('accepts containment when the contained key is also the closest', () => {
    expect(closestMatch('iteration_timeout', SCHEMA_EVENT_LOOP_KEYS)).toBe('iteration_timeout_seconds');
    expect(closestMatch('max_cost', SCHEMA_EVENT_LOOP_KEYS)).toBe('max_cost_usd');
  });

  it.each([
    ['max_runtime', 'max_runtime_seconds'],
    ['cooldown', 'cooldown_delay_seconds'],
  ])('suggests the only key containing %j even when another key is closer by edit distance', (word, want) => {
    expect(closestMatch(word, SCHEMA_EVENT_LOOP_KEYS)).toBe(want);
  });

  it('returns undefined for nothing plausible or no candidates', () => {
    expect(closestMatch('zzzzzzzzzzzz', EVENT_LOOP_KEYS)).toBeUndefined();
    expect(closestMatch('anything', [])).toBeUndefined();
  });

  it('property: an exact candidate is always returned', () => {
    fc.assert(
      fc.property(fc.constantFrom(...EVENT_LOOP_KEYS), (key) => {
        expect(closestMatch(key, EVENT_LOOP_KEYS)).toBe(key);
      }),
    );
  });

  it('property: the result is a closest candidate or one that contains / is contained in the word', () => {
    const word = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc
        .constantFrom(...EVENT_LOOP_KEYS)
        .chain((k) =>
          fc
            .tuple(fc.nat(k.length), fc.nat(k.length))
            .map(([a, b]) => k.slice(Math.min(a, b), Math.max(a, b))),
        ),
    );
    fc.assert(
      fc.property(word, (w) => {
        const got = closestMatch(w, EVENT_LOOP_KEYS);
        if (got === undefined) return;
        expect(EVENT_LOOP_KEYS).toContain(got);
        const lower = w.toLowerCase();
        const min = Math.min(...EVENT_LOOP_KEYS.map((k) => editDistance(lower, k)));
        const closest = editDistance(lower, got) === min;
        const contained = got.includes(lower) || lower.includes(got);
        expect(closest || contained).toBe(true);
      }),
    );
  });
});
