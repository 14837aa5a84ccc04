import { describe, expect, it } from 'vitest';
import { tamperedPaths } from '../../../../../src/engine/gates/checks/protected-files.ts';

describe('protected files', () => {
  it('reports changed, deleted and added protected paths', () => {
    expect(tamperedPaths({ a: '1', b: '2', c: '3' }, { a: '1', b: 'x', d: '4' })).toEqual(['b', 'c', 'd']);
    expect(tamperedPaths({ a: '1' }, { a: '1' })).toEqual([]);
  });
});
