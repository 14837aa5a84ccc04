import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexHasFlags } from '../../../../src/git/workspace-guard/index-file.ts';
import {
  flaggedPaths,
  flagsGained,
  type IndexFlags,
  parseIndexFlags,
} from '../../../../src/git/workspace-guard/index-flags.ts';

/** `git ls-files -v -z` output for these entries. */
const lsFiles = (entries: readonly [string, string][]) =>
  entries.map(([tag, path]) => `${tag} ${path}\0`).join('');

describe('parseIndexFlags', () => {
  it('reads S as skip-worktree, a lowercase tag as assume-unchanged, s as both, and H as neither', () => {
    const out = lsFiles([
      ['H', 'src/app.ts'],
      ['S', 'docs/big.txt'],
      ['h', 'tests/check.sh'],
      ['s', 'both.txt'],
      ['H', 'a path with spaces and\nnewline'],
      ['S', '-starts-with-dash'],
    ]);
    expect(parseIndexFlags(out)).toEqual({
      skipWorktree: ['-starts-with-dash', 'both.txt', 'docs/big.txt'],
      assumeUnchanged: ['both.txt', 'tests/check.sh'],
    });
  });

  it('finds nothing in an empty index or output without a tag', () => {
    expect(parseIndexFlags('')).toEqual({ skipWorktree: [], assumeUnchanged: [] });
    expect(parseIndexFlags('garbage\0\0')).toEqual({ skipWorktree: [], assumeUnchanged: [] });
  });

  const path = fc.stringMatching(/^[^\0]{1,20}$/);
  const tag = fc.constantFrom('H', 'S', 'h', 's', 'M', 'm', 'C', 'c');

  it('flags exactly the entries whose tag says so, whatever the paths hold (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(tag, path), { selector: ([, p]) => p }), (entries) => {
        const flags = parseIndexFlags(lsFiles(entries));
        const expected = (keep: (t: string) => boolean) =>
          entries
            .filter(([t]) => keep(t))
            .map(([, p]) => p)
            .sort();
        expect(flags.skipWorktree).toEqual(expected((t) => t === 'S' || t === 's'));
        expect(flags.assumeUnchanged).toEqual(expected((t) => t === t.toLowerCase()));
      }),
    );
  });
});

describe('flagsGained', () => {
  const flags: fc.Arbitrary<IndexFlags> = fc.record({
    skipWorktree: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e')),
    assumeUnchanged: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e')),
  });

  it('keeps the bits the start had (a sparse checkout) and names the ones set since', () => {
    const start: IndexFlags = { skipWorktree: ['docs/big.txt'], assumeUnchanged: [] };
    const now: IndexFlags = {
      skipWorktree: ['docs/big.txt', 'tests/check.sh'],
      assumeUnchanged: ['docs/big.txt'],
    };
    const gained = flagsGained(start, now);
    expect(gained).toEqual({ skipWorktree: ['tests/check.sh'], assumeUnchanged: ['docs/big.txt'] });
    expect(flaggedPaths(gained)).toEqual(['docs/big.txt', 'tests/check.sh']);
  });

  it('is the set difference per kind: nothing of the start, everything new (property)', () => {
    fc.assert(
      fc.property(flags, flags, (start, now) => {
        const gained = flagsGained(start, now);
        for (const kind of ['skipWorktree', 'assumeUnchanged'] as const) {
          expect(gained[kind].every((p) => now[kind].includes(p) && !start[kind].includes(p))).toBe(true);
          expect(now[kind].every((p) => start[kind].includes(p) || gained[kind].includes(p))).toBe(true);
        }
        expect(flaggedPaths(flagsGained(now, now))).toEqual([]);
      }),
    );
  });
});

describe('indexHasFlags', () => {
  const header = (version: number, count: number) => {
    const b = Buffer.alloc(12);
    b.write('DIRC', 0, 'latin1');
    b.writeUInt32BE(version, 4);
    b.writeUInt32BE(count, 8);
    return b;
  };

  it('cannot tell for what is not an index of versions 2–4, or is cut short', () => {
    const trailer = Buffer.alloc(20);
    expect(indexHasFlags(Buffer.from('not an index at all, not at all'))).toBeUndefined();
    expect(indexHasFlags(Buffer.concat([header(5, 0), trailer]))).toBeUndefined();
    expect(indexHasFlags(Buffer.concat([header(2, 1), trailer]))).toBeUndefined();
    expect(indexHasFlags(Buffer.concat([header(2, 0), trailer]))).toBe(false);
  });
});
