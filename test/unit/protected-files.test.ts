import { describe, expect, it } from 'vitest';
import { globToRegExp, tamperedPaths } from '../../src/gates/protected-files.ts';

describe('protected files', () => {
  it('matches globs the way people write them', () => {
    const m = (glob: string, path: string) => globToRegExp(glob).test(path);
    expect(m('.github/workflows/**', '.github/workflows/ci.yml')).toBe(true);
    expect(m('.github/workflows/**', '.github/workflows/sub/x.yml')).toBe(true);
    expect(m('tests/**/*.test.ts', 'tests/a.test.ts')).toBe(true);
    expect(m('tests/**/*.test.ts', 'tests/deep/b.test.ts')).toBe(true);
    expect(m('tests/*.ts', 'tests/deep/b.ts')).toBe(false);
    expect(m('.gitlab-ci.yml', '.gitlab-ci.yml')).toBe(true);
    expect(m('.gitlab-ci.yml', 'xgitlab-ci.yml')).toBe(false);
  });

  it('reports changed, deleted and added protected paths', () => {
    expect(tamperedPaths({ a: '1', b: '2', c: '3' }, { a: '1', b: 'x', d: '4' })).toEqual(['b', 'c', 'd']);
    expect(tamperedPaths({ a: '1' }, { a: '1' })).toEqual([]);
  });
});
