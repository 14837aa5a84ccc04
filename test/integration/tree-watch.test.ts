import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchTree } from '../../src/git/tree-watch.ts';
import { waitFor } from '../helpers/wait.ts';
import { removeWhenDone } from '../helpers/workspace.ts';

const root = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-tree-watch-')));

describe('watchTree (the one careful watcher: the git cache and the idle wait)', () => {
  it('names each change relative to the top, skips what it is told to, and goes below the top only when recursive', async () => {
    const top = join(root, 'a');
    mkdirSync(join(top, 'sub', 'deep'), { recursive: true });
    mkdirSync(join(top, '.ralph'));
    const deep: (string | null)[] = [];
    const flat: (string | null)[] = [];
    const skip = (rel: string) => rel === '.ralph' || rel.startsWith('.ralph/');
    const all = watchTree(top, { skip, maxDirs: 100, onChange: (rel) => deep.push(rel) });
    const one = watchTree(top, { skip, maxDirs: 100, recursive: false, onChange: (rel) => flat.push(rel) });
    try {
      writeFileSync(join(top, 'sub', 'deep', 'x.txt'), '1');
      writeFileSync(join(top, '.ralph', 'state.json'), '{}');
      writeFileSync(join(top, 'y.txt'), '1');
      // inotify events arrive on later turns of the loop, in the order written: y.txt comes last.
      await waitFor(
        () => deep.includes('y.txt') && deep.includes('sub/deep/x.txt') && flat.includes('y.txt'),
      );
      expect(new Set(deep)).toEqual(new Set(['sub/deep/x.txt', 'y.txt']));
      expect(new Set(flat)).toEqual(new Set(['y.txt']));
      expect(all.complete && one.complete).toBe(true);
    } finally {
      all.close();
      one.close();
    }
  });
});
