import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readWorkTreeLayout } from '../../src/git/work-tree-layout.ts';
import { indexHasFlags } from '../../src/git/workspace-guard/index-file.ts';
import {
  clearIndexFlags,
  currentIndexFlags,
  readIndexFlags,
} from '../../src/git/workspace-guard/index-flags.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';

// The index reader answers "any flag?" as git does, on indexes git wrote in each format version;
// when it cannot tell, the run asks git (ls-files -v).

const LONG = `${'d'.repeat(120)}/${'n'.repeat(200)}.txt`;

/** A committed repository with paths of many lengths, its index in format `version`. */
function repo(version: number): string {
  const files: Record<string, string> = { 'a.txt': 'a\n', 'src/app.ts': 'app\n', [LONG]: 'long\n' };
  for (let i = 0; i < 40; i++) files[`dir${i % 7}/${'x'.repeat(i)}f${i}.txt`] = `${i}\n`;
  const dir = makeGitWorkspace(files);
  git(dir, 'update-index', '--index-version', String(version));
  return dir;
}

const index = (dir: string) => readFileSync(join(dir, '.git', 'index'));

describe('indexHasFlags on indexes git wrote', () => {
  for (const version of [2, 3, 4]) {
    it(`format ${version}: no flag, then assume-unchanged, then skip-worktree on a long path`, () => {
      const dir = repo(version);
      expect(indexHasFlags(index(dir))).toBe(false);
      git(dir, 'update-index', '--assume-unchanged', 'src/app.ts');
      expect(indexHasFlags(index(dir))).toBe(true);
      git(dir, 'update-index', '--no-assume-unchanged', 'src/app.ts');
      expect(indexHasFlags(index(dir))).toBe(false);
      git(dir, 'update-index', '--skip-worktree', LONG);
      expect(indexHasFlags(index(dir))).toBe(true);
    });
  }

  it('cannot tell for a split index without a flag in it (the shared file holds the entries), so git is asked', async () => {
    const dir = repo(2);
    git(dir, 'update-index', '--split-index');
    expect(indexHasFlags(index(dir))).toBeUndefined();
    const layout = (await readWorkTreeLayout(dir))!;
    expect(await currentIndexFlags(layout)).toEqual({ skipWorktree: [], assumeUnchanged: [] });
    git(dir, 'update-index', '--skip-worktree', 'a.txt');
    expect(await currentIndexFlags(layout)).toEqual({ skipWorktree: ['a.txt'], assumeUnchanged: [] });
  });

  it('never throws on a truncated or altered index: an answer or undefined (property)', () => {
    const dir = repo(4);
    git(dir, 'update-index', '--assume-unchanged', 'a.txt');
    const real = index(dir);
    fc.assert(
      fc.property(fc.nat(real.length), fc.nat(real.length - 1), fc.nat(255), (cut, at, byte) => {
        const altered = Buffer.from(real.subarray(0, cut));
        if (at < altered.length) altered[at] = byte;
        expect([true, false, undefined]).toContain(indexHasFlags(altered));
      }),
    );
  });
});

describe('currentIndexFlags and clearIndexFlags', () => {
  it('reads no flag without git when there is none, and clears exactly the bits named', async () => {
    const dir = repo(3);
    const layout = (await readWorkTreeLayout(dir))!;
    expect(await currentIndexFlags(layout)).toEqual({ skipWorktree: [], assumeUnchanged: [] });
    git(dir, 'update-index', '--skip-worktree', 'a.txt');
    git(dir, 'update-index', '--assume-unchanged', 'src/app.ts', LONG);
    const flags = await currentIndexFlags(layout);
    expect(flags).toEqual({ skipWorktree: ['a.txt'], assumeUnchanged: [LONG, 'src/app.ts'].sort() });
    await clearIndexFlags(layout.top, { skipWorktree: ['a.txt'], assumeUnchanged: ['src/app.ts'] });
    expect(await readIndexFlags(layout.top)).toEqual({ skipWorktree: [], assumeUnchanged: [LONG] });
  });
});
