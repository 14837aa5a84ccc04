import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch/posix.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { GLOB_OPTIONS, pathMatcher } from '../../../src/config/path-patterns.ts';
import { matchProtected, unmatchedPatterns } from '../../../src/engine/gates/checks/protected-files.ts';
import { removeWhenDone } from '../../helpers/workspace.ts';

const FILES = [
  'a.ts',
  'b.js',
  'ab.txt',
  '.hidden',
  '.github/workflows/ci.yml',
  'src/a.ts',
  'src/.env',
  'src/b/c.tsx',
  'test/a.spec.ts',
  'test/b.js',
  'test/deep/c.spec.js',
  'test/deep/d.json',
  'b/a/x.md',
];

let ws = '';
beforeAll(() => {
  ws = removeWhenDone(mkdtempSync(join(tmpdir(), 'path-patterns-')));
  for (const f of FILES) {
    mkdirSync(dirname(join(ws, f)), { recursive: true });
    writeFileSync(join(ws, f), f);
  }
});

/** picomatch's own answer: the file, or a directory holding it, matches the glob. */
function picomatchSelection(glob: string): string[] {
  const isMatch = picomatch(glob, GLOB_OPTIONS);
  return FILES.filter((f) => {
    const parts = f.split('/');
    return parts.some((_, i) => isMatch(parts.slice(0, i + 1).join('/')));
  }).sort();
}

const accepted = (glob: string) => {
  try {
    picomatch.makeRe(glob, GLOB_OPTIONS);
    return true;
  } catch {
    return false;
  }
};

const segment = fc.constantFrom(
  'a',
  'b',
  'src',
  'test',
  'deep',
  '.github',
  '*',
  '**',
  '?',
  '*.ts',
  '*.{ts,js}',
  '*.spec.{ts,js}',
  '{a,b}.*',
  '[ab].*',
  '[!a]*',
  '@(a|b).ts',
  '*.+(ts|tsx)',
  '.*',
);
const structured = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
const anyChars = fc
  .string({ unit: fc.constantFrom(...'ab./*?[]{},!-^()|@+\\'.split('')), minLength: 1, maxLength: 12 })
  .filter((g) => !/^(?:!|\/|\.\/)/.test(g) && !g.endsWith('/') && g !== '.' && !g.includes('..'));

describe('config path patterns (gates.protect, idle_watch)', () => {
  it('a top-level | alternates the whole pattern, so its matches live anywhere; a `.` segment is no directory to walk from (both found by the property below)', () => {
    for (const glob of ['a/|*', 'src/x|test/**', 'b|[a', 'b/.', 'b/./a'])
      expect(matchProtected(ws, [glob])).toEqual(picomatchSelection(glob));
  });

  it('gates.protect selects exactly the files picomatch selects (dot: true; a matched directory covers its files)', () => {
    fc.assert(
      fc.property(fc.oneof(structured, anyChars).filter(accepted), (glob) => {
        expect(matchProtected(ws, [glob])).toEqual(picomatchSelection(glob));
      }),
      { numRuns: 400 },
    );
  });

  it('matches the globs people write: braces, classes, any depth, dot-files, directories', () => {
    const sel = (...patterns: string[]) => matchProtected(ws, patterns);
    expect(sel('test/**/*.{ts,js}')).toEqual(['test/a.spec.ts', 'test/b.js', 'test/deep/c.spec.js']);
    expect(sel('[ab].ts')).toEqual(['a.ts']);
    expect(sel('*.ts')).toEqual(['a.ts']);
    expect(sel('**/*.ts')).toEqual(['a.ts', 'src/a.ts', 'test/a.spec.ts']);
    expect(sel('**/*.yml')).toEqual(['.github/workflows/ci.yml']);
    expect(sel('test')).toEqual(sel('test/**'));
    expect(sel('/test/', './test')).toEqual(sel('test/**'));
    expect(sel('a.ts/')).toEqual([]);
    expect(sel('test/**', '!test/deep', 'test/deep/d.json')).toEqual([
      'test/a.spec.ts',
      'test/b.js',
      'test/deep/d.json',
    ]);
  });

  it("never protects .git, node_modules or Ralph's runtime files (they change every iteration)", () => {
    for (const f of ['.git/HEAD', 'node_modules/x/package.json', '.ralph/state.json', '.ralph/logs/a.json']) {
      mkdirSync(dirname(join(ws, f)), { recursive: true });
      writeFileSync(join(ws, f), '{}');
    }
    writeFileSync(join(ws, '.ralph/validate.sh'), 'exit 0\n');
    expect(matchProtected(ws, ['**/*.json', '**/HEAD'])).toEqual(['test/deep/d.json']);
    expect(matchProtected(ws, ['.ralph/**'])).toEqual(['.ralph/validate.sh']);
    for (const d of ['.git', 'node_modules', '.ralph']) rmSync(join(ws, d), { recursive: true });
  });

  it('names the patterns that select no file', () => {
    expect(unmatchedPatterns(ws, ['test/**/*.{tsx}', 'test/**', '!nothing', 'src/*.ts', 'nope/'])).toEqual([
      'test/**/*.{tsx}',
      'nope/',
    ]);
  });

  it('a trailing / matches directories only; the last matching pattern decides', () => {
    const m = pathMatcher(['logs/', '*.log', '!keep.log']);
    expect(m('logs', true)).toBe(true);
    expect(m('logs')).toBe(false);
    expect(m('logs/a.txt')).toBe(true);
    expect(m('x.log')).toBe(true);
    expect(m('keep.log')).toBe(false);
  });
});

describe('pathMatcher with parentsCleared (a pruning walk)', () => {
  const patterns = ['**/.git', '**/node_modules/', '.ralph/logs/', '.ralph/state.json*', 'src/*.ts'];
  const segment = fc.constantFrom(
    'a',
    'src',
    '.git',
    'node_modules',
    '.ralph',
    'logs',
    'state.json.1',
    'x.ts',
  );

  it('decides as the full matcher for every path whose parents the full matcher leaves unmatched', () => {
    const full = pathMatcher(patterns);
    const cleared = pathMatcher(patterns, { parentsCleared: true });
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.boolean(), (parts, isDir) => {
        const parents = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
        fc.pre(parents.every((p) => !full(p, true)));
        expect(cleared(parts.join('/'), isDir)).toBe(full(parts.join('/'), isDir));
      }),
    );
  });

  it('still looks at the parents when a pattern is negated (a parent may be unselected by it)', () => {
    const cleared = pathMatcher(['logs/', '!logs/keep/'], { parentsCleared: true });
    expect(cleared('logs/a/b.txt')).toBe(true);
    expect(cleared('logs/keep/b.txt')).toBe(false);
  });
});
