import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkingTreeCache, type WorkingTreeCache } from '../../src/git/status-cache.ts';
import { workingTreeChanges } from '../../src/git/working-tree.ts';
import { type DebugEvent, setDebugSink } from '../../src/process/debug-trace.ts';
import { RUNTIME_PATHS } from '../../src/state/paths.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';

const caches: WorkingTreeCache[] = [];
afterEach(() => {
  for (const c of caches.splice(0)) c.close();
});

function cacheFor(root: string): WorkingTreeCache {
  const cache = createWorkingTreeCache(root, RUNTIME_PATHS);
  caches.push(cache);
  return cache;
}

function write(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

/** The cache must answer exactly what a fresh `git status` answers, whatever happened before. */
async function expectSameAsStatus(cache: WorkingTreeCache, root: string): Promise<void> {
  expect(await cache.changes()).toEqual(await workingTreeChanges(root, { exclude: RUNTIME_PATHS }));
}

describe('the cached git status of a loop', () => {
  it('sees every kind of change: edits, new directories, deletions, renames, the index, commits', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/deep/c.txt': 'c\n' });
    const cache = cacheFor(dir);
    const steps: [string, () => void][] = [
      ['nothing', () => {}],
      ['edit a tracked file', () => appendFileSync(join(dir, 'a.txt'), 'more\n')],
      ['a new directory with a file at once', () => write(dir, 'new/dir/d.txt', 'd\n')],
      ['a file in the new directory', () => write(dir, 'new/dir/e.txt', 'e\n')],
      ['stage it (index only)', () => git(dir, 'add', 'new/dir/e.txt')],
      ['delete a tracked file', () => rmSync(join(dir, 'src/b.txt'))],
      [
        'commit everything',
        () => {
          git(dir, 'add', '-A');
          git(dir, 'commit', '-qm', 'step');
        },
      ],
      ['rename a directory', () => renameSync(join(dir, 'src/deep'), join(dir, 'src/moved'))],
      ['a file in the renamed directory', () => write(dir, 'src/moved/f.txt', 'f\n')],
      [
        'remove a directory and make it again',
        () => {
          rmSync(join(dir, 'new'), { recursive: true });
          write(dir, 'new/dir/g.txt', 'g\n');
        },
      ],
      ['a file inside the directory made again', () => write(dir, 'new/dir/h.txt', 'h\n')],
      ['ignore it', () => write(dir, '.gitignore', 'new/\n')],
      ['change the mode of a file', () => chmodSync(join(dir, 'a.txt'), 0o755)],
      ['reset to HEAD (index and tree)', () => git(dir, 'reset', '-q', '--hard')],
      ['an ignore rule in .git/info/exclude', () => write(dir, '.git/info/exclude', 'src/\n')],
      ['untrack a file (index only)', () => git(dir, 'rm', '-q', '--cached', 'a.txt')],
    ];
    for (const [what, step] of steps) {
      step();
      await expect(expectSameAsStatus(cache, dir), what).resolves.toBeUndefined();
      // Asked twice in a row: the second answer comes from the cache and must not differ.
      await expect(expectSameAsStatus(cache, dir), `${what}, again`).resolves.toBeUndefined();
    }
  });

  it('matches `git status` through a long pseudo-random run of file, directory and git operations', async () => {
    const dir = makeGitWorkspace({ 'a/x.txt': 'x\n', 'b/c/y.txt': 'y\n', 'z.txt': 'z\n' });
    const cache = cacheFor(dir);
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const dirNames = ['a', 'b', 'b/c', 'd', 'd/e/f', '.ralph', '.ralph/agent', '.ralph/runs/r'];
    const pick = <T>(xs: readonly T[]): T => xs[random(xs.length)] as T;
    const ops: (() => void)[] = [
      () => write(dir, `${pick(dirNames)}/f${random(5)}.txt`, `${random(1000)}\n`),
      () => rmSync(join(dir, `${pick(dirNames)}/f${random(5)}.txt`), { force: true }),
      () => rmSync(join(dir, pick(dirNames)), { recursive: true, force: true }),
      () => {
        const from = pick(dirNames);
        const to = pick(dirNames);
        try {
          renameSync(join(dir, from), join(dir, `${to}-moved`));
        } catch {
          // a missing source, or a target inside the source
        }
      },
      () => git(dir, 'add', '-A'),
      () => git(dir, 'commit', '-qm', 'step', '--allow-empty'),
      () => write(dir, '.gitignore', random(2) === 0 ? 'd/\n' : ''),
      () => write(dir, '.ralph/state.json', `${random(1000)}\n`),
    ];
    for (let step = 0; step < 80; step++) {
      ops[random(ops.length)]?.();
      await expect(expectSameAsStatus(cache, dir), `step ${step}`).resolves.toBeUndefined();
    }
  });

  it("leaves Ralph's runtime files out, and sees the user's files under .ralph/", async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n' });
    const cache = cacheFor(dir);
    expect(await cache.changes()).toEqual([]);
    write(dir, '.ralph/state.json', '{}\n');
    write(dir, '.ralph/runs/r1/iterations.jsonl', '{}\n');
    write(dir, '.ralph/agent/scratchpad.md', 'notes\n');
    expect(await cache.changes()).toEqual([]);
    write(dir, '.ralph/agent/memories.md', '# memories\n');
    expect((await cache.changes()).map((c) => c.path)).toEqual(['.ralph/agent/memories.md']);
  });

  it('works for a workspace in a subdirectory: changes anywhere in the repository count', async () => {
    const dir = makeGitWorkspace({ 'sub/a.txt': 'a\n', 'other/b.txt': 'b\n' });
    const cache = cacheFor(join(dir, 'sub'));
    await expectSameAsStatus(cache, join(dir, 'sub'));
    appendFileSync(join(dir, 'other/b.txt'), 'more\n');
    write(dir, 'sub/.ralph/state.json', '{}\n');
    await expectSameAsStatus(cache, join(dir, 'sub'));
    expect((await cache.changes()).map((c) => c.path)).toEqual(['other/b.txt']);
  });

  it('leaves out what git ignores (a node_modules of 4,100 directories) and still caches', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n', '.gitignore': 'node_modules/\n' });
    for (let i = 0; i < 4100; i++) mkdirSync(join(dir, 'node_modules', `p${i}`), { recursive: true });
    const cache = cacheFor(dir);
    await expectSameAsStatus(cache, dir);
    const runs = cache.statusRuns;
    // Nothing changed, or only inside the ignored directory: answered from the cache.
    await expectSameAsStatus(cache, dir);
    writeFileSync(join(dir, 'node_modules', 'p7', 'index.js'), 'x');
    await expectSameAsStatus(cache, dir);
    expect(cache.statusRuns).toBe(runs);
    // A change git sees is seen.
    appendFileSync(join(dir, 'a.txt'), 'more\n');
    await expectSameAsStatus(cache, dir);
    expect(cache.statusRuns).toBe(runs + 1);
  });

  it('follows a .gitignore edit: a directory no longer ignored is watched from then on', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n', '.gitignore': 'build/\n' });
    write(dir, 'build/out.txt', 'old\n');
    const cache = cacheFor(dir);
    await expectSameAsStatus(cache, dir);
    writeFileSync(join(dir, '.gitignore'), '');
    await expectSameAsStatus(cache, dir);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'track build');
    await expectSameAsStatus(cache, dir);
    // Inside the directory that used to be left out: a change git now sees.
    writeFileSync(join(dir, 'build', 'out.txt'), 'new\n');
    await expectSameAsStatus(cache, dir);
    write(dir, 'build/more/deep.txt', 'x\n');
    await expectSameAsStatus(cache, dir);
  });

  it('with watchLater: a plain `git status` each call until watch(), then cached; a change made meanwhile is seen', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n' });
    const cache = createWorkingTreeCache(dir, RUNTIME_PATHS, process.env, undefined, { watchLater: true });
    caches.push(cache);
    await expectSameAsStatus(cache, dir);
    await expectSameAsStatus(cache, dir);
    expect(cache.statusRuns).toBe(2);
    // The agent's start: the watch is set up while it runs, and what it changes meanwhile counts.
    cache.watch();
    appendFileSync(join(dir, 'a.txt'), 'more\n');
    await expectSameAsStatus(cache, dir);
    expect(cache.statusRuns).toBe(3);
    cache.watch();
    await expectSameAsStatus(cache, dir);
    expect(cache.statusRuns).toBe(3);
    write(dir, 'new/b.txt', 'b\n');
    await expectSameAsStatus(cache, dir);
    expect(cache.statusRuns).toBe(4);
  });

  it('still runs `git status` each time in a repository with submodules', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n', '.gitmodules': '' });
    const cache = cacheFor(dir);
    await expectSameAsStatus(cache, dir);
    appendFileSync(join(dir, 'a.txt'), 'more\n');
    await expectSameAsStatus(cache, dir);
  });

  it('answers like `git status` after close, and outside a watched tree', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n' });
    const cache = cacheFor(dir);
    await cache.changes();
    cache.close();
    appendFileSync(join(dir, 'a.txt'), 'more\n');
    await expectSameAsStatus(cache, dir);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a\nmore\n');
  });
});

describe('the cached git status in the debug trace (issue 36)', () => {
  afterEach(() => {
    setDebugSink(undefined);
  });

  it('says each answer from the cache as a hit, and an answer git had to give as a miss', async () => {
    const dir = makeGitWorkspace({ 'a.txt': 'a\n' });
    const cache = cacheFor(dir);
    await cache.changes(); // sets the watch up: no cached answer yet
    const seen: DebugEvent[] = [];
    setDebugSink((e) => seen.push(e));
    await cache.changes();
    await cache.changes();
    appendFileSync(join(dir, 'a.txt'), 'more\n');
    await cache.changes();
    const answers = seen.flatMap((e) => (e.kind === 'cache' ? [`${e.name} ${e.hit ? 'hit' : 'miss'}`] : []));
    expect(answers.slice(-2)).toEqual(['git status hit', 'git status miss']);
    expect(seen.some((e) => e.kind === 'process.ended' && e.args.includes('status'))).toBe(true);
  });
});
