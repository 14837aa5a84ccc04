import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  contentHash,
  fileEntry,
  snapshot,
  tamperedPaths,
} from '../../../../../src/engine/gates/checks/protected-files.ts';
import { restoreSwapped, swapJournalFile } from '../../../../../src/state/crash-repair.ts';
import { ralphPaths } from '../../../../../src/state/paths.ts';
import { makeWorkspace } from '../../../../helpers/workspace.ts';

// Issue 32: a protected file is its content, its executable bit and its type (file or symlink).

const hex = fc.stringMatching(/^[0-9a-f]{8}$/);
const mode = fc.constantFrom('100644', '100755', '120000');

describe('tamperedPaths with modes', () => {
  it('a path is tampered exactly when its content, mode or presence differs', () => {
    const entry = fc.option(fc.tuple(hex, mode), { nil: undefined });
    fc.assert(
      fc.property(entry, entry, (b, n) => {
        const show = (e: [string, string] | undefined): Record<string, string> =>
          e ? { f: `${e[0]}:${e[1]}` } : {};
        const differs = JSON.stringify(b) !== JSON.stringify(n);
        expect(tamperedPaths(show(b), show(n))).toEqual(differs ? ['f'] : []);
      }),
    );
  });

  it('a content-only baseline (a state.json from before modes were kept) compares content, and a symlink never matches it', () => {
    fc.assert(
      fc.property(hex, hex, mode, (base, now, m) => {
        const same = base === now && m !== '120000';
        expect(tamperedPaths({ f: base }, { f: `${now}:${m}` })).toEqual(same ? [] : ['f']);
      }),
    );
  });
});

describe('fileEntry / snapshot', () => {
  it('tells the executable bit and a symlink with the same content apart', () => {
    const dir = makeWorkspace({ '.ralph/validate.sh': 'exit 1\n', 'mine.sh': 'exit 1\n' });
    const hook = join(dir, '.ralph/validate.sh');
    chmodSync(hook, 0o755);
    const exec = fileEntry(hook);
    expect(exec).toMatch(/:100755$/);
    chmodSync(hook, 0o644);
    const plain = fileEntry(hook);
    expect(plain).toMatch(/:100644$/);
    expect(contentHash(plain!)).toBe(contentHash(exec!));
    const before = snapshot(dir, ['.ralph/validate.sh']);
    rmSync(hook);
    symlinkSync('../mine.sh', hook);
    expect(fileEntry(hook)).toMatch(/:120000$/);
    expect(tamperedPaths(before, snapshot(dir, ['.ralph/validate.sh']))).toEqual(['.ralph/validate.sh']);
  });
});

describe('the swap journal', () => {
  it('a journal naming a file outside the work tree puts nothing back and says so', () => {
    const dir = makeWorkspace({ 'a.txt': 'mine\n' });
    const paths = ralphPaths(dir);
    mkdirSync(paths.protectedStore, { recursive: true });
    const outside = join(dir, '..', 'outside.txt');
    const journal = (path: string) =>
      JSON.stringify({ files: [{ path, agent_content: Buffer.from('x').toString('base64') }] });
    for (const path of [outside, join(dir, '.git', 'hooks', 'pre-commit'), 'a.txt']) {
      writeFileSync(swapJournalFile(paths), journal(path));
      expect(() => restoreSwapped(paths)).toThrow(/not a file of the work tree/);
      expect(existsSync(swapJournalFile(paths))).toBe(true);
    }
    expect(existsSync(outside)).toBe(false);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('mine\n');
  });

  it('puts back a mode and a symlink as the agent left them', () => {
    const dir = makeWorkspace({ 'x.sh': 'protected\n' });
    const paths = ralphPaths(dir);
    mkdirSync(paths.protectedStore, { recursive: true });
    writeFileSync(
      swapJournalFile(paths),
      JSON.stringify({
        files: [
          {
            path: join(dir, 'x.sh'),
            agent_content: Buffer.from('agent\n').toString('base64'),
            agent_mode: 0o700,
          },
          { path: join(dir, 'l.sh'), agent_content: null, agent_link: 'x.sh' },
        ],
      }),
    );
    expect(restoreSwapped(paths)).toHaveLength(2);
    expect(fileEntry(join(dir, 'x.sh'))).toMatch(/:100755$/);
    expect(readFileSync(join(dir, 'l.sh'), 'utf8')).toBe('agent\n');
    expect(fileEntry(join(dir, 'l.sh'))).toMatch(/:120000$/);
  });
});
