import { describe, expect, it, vi } from 'vitest';
import { tamperedPaths } from '../../src/gates/protected-files.ts';

describe('protected files', () => {
  it('reports changed, deleted and added protected paths', () => {
    expect(tamperedPaths({ a: '1', b: '2', c: '3' }, { a: '1', b: 'x', d: '4' })).toEqual(['b', 'c', 'd']);
    expect(tamperedPaths({ a: '1' }, { a: '1' })).toEqual([]);
  });
});

describe('hashFile', () => {
  it('sees a same-size rewrite whose mtime was put back (the change time still moves)', async () => {
    const { mkdtempSync, writeFileSync, utimesSync, statSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { hashFile } = await import('../../src/gates/protected-files.ts');
    const dir = mkdtempSync(join(tmpdir(), 'hash-'));
    try {
      const file = join(dir, 'validate.sh');
      writeFileSync(file, 'exit 0\n');
      utimesSync(file, new Date(2020, 0, 1), new Date(2020, 0, 1));
      // A minute on: the file's change time is past the racy window, so the hash is remembered.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
      const before = hashFile(file);
      expect(hashFile(file)).toBe(before);
      const { mtime } = statSync(file);
      writeFileSync(file, 'exit 1\n');
      utimesSync(file, mtime, mtime);
      expect(hashFile(file)).not.toBe(before);
    } finally {
      vi.useRealTimers();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
