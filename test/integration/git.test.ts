import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RalphError } from '../../src/errors.ts';
import { commitAll } from '../../src/git/commit.ts';
import { pushWithRetry } from '../../src/git/push.ts';
import { describeRefusal, isGitRepo, repoState } from '../../src/git/repo-state.ts';
import { changedFilesBetween, workingTreeChanges } from '../../src/git/working-tree.ts';
import { removeWhenDone } from '../helpers/workspace.ts';

function tempDir(): string {
  return removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-git-')));
}

// Never let an inherited GIT_DIR (e.g. tests run from a hook) point these commands at another repo.
const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) delete env[name];

function git(dir: string, ...args: string[]): string {
  const options: ExecFileSyncOptions = { env, stdio: ['ignore', 'pipe', 'pipe'] };
  return execFileSync('git', ['-C', dir, ...args], options)
    .toString()
    .trim();
}

/** `git` that may fail (a conflicting merge/rebase); returns its exit code. */
function gitStatus(dir: string, ...args: string[]): number {
  try {
    git(dir, ...args);
    return 0;
  } catch (error) {
    return (error as { status: number }).status;
  }
}

function write(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

/** A fresh repository on `main` with no commits, and a local identity. */
function freshRepo(): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Ralph Test');
  git(dir, 'config', 'user.email', 'ralph@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  return dir;
}

function repoWithCommit(files: Record<string, string> = { 'README.md': 'hello\n' }): string {
  const dir = freshRepo();
  for (const [path, content] of Object.entries(files)) write(dir, path, content);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

const EXCLUDE = ['.ralph/state.json', '.ralph/logs/'];

describe('repository detection and state', () => {
  it('knows a repository without commits, and a plain directory', async () => {
    const dir = freshRepo();
    expect(await isGitRepo(dir)).toBe(true);
    expect(await isGitRepo(tempDir())).toBe(false);
    expect(await isGitRepo(join(tempDir(), 'missing'))).toBe(false);
    expect(await repoState(dir)).toEqual({ branch: 'main', head: null, operation: null });
    expect(describeRefusal(await repoState(dir))).toBeUndefined();
  });

  it('reports a detached HEAD', async () => {
    const dir = repoWithCommit();
    const head = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', '--detach', 'HEAD');
    const state = await repoState(dir);
    expect(state).toEqual({ branch: null, head, operation: null });
    expect(describeRefusal(state)).toMatch(
      /^HEAD is detached \(.*\); check out a branch before running ralph$/,
    );
  });

  it('reports a merge stopped on a conflict, and lists the unmerged path', async () => {
    const dir = repoWithCommit({ 'f.txt': 'base\n' });
    git(dir, 'checkout', '-q', '-b', 'other');
    write(dir, 'f.txt', 'other\n');
    git(dir, 'commit', '-q', '-am', 'other');
    git(dir, 'checkout', '-q', 'main');
    write(dir, 'f.txt', 'main\n');
    git(dir, 'commit', '-q', '-am', 'main');
    expect(gitStatus(dir, 'merge', '-q', 'other')).not.toBe(0);

    const state = await repoState(dir);
    expect(state.branch).toBe('main');
    expect(state.operation).toBe('merge');
    expect(describeRefusal(state)).toMatch(/^a merge is in progress; finish it/);
    expect(await workingTreeChanges(dir, { exclude: [] })).toEqual([{ path: 'f.txt', status: 'UU' }]);
  });

  it('reports a rebase stopped on a conflict', async () => {
    const dir = repoWithCommit({ 'f.txt': 'base\n' });
    git(dir, 'checkout', '-q', '-b', 'feature');
    write(dir, 'f.txt', 'feature\n');
    git(dir, 'commit', '-q', '-am', 'feature');
    git(dir, 'checkout', '-q', 'main');
    write(dir, 'f.txt', 'main\n');
    git(dir, 'commit', '-q', '-am', 'main');
    git(dir, 'checkout', '-q', 'feature');
    expect(gitStatus(dir, 'rebase', 'main')).not.toBe(0);

    const state = await repoState(dir);
    expect(state.operation).toBe('rebase');
    expect(state.branch).toBeNull(); // git detaches HEAD while rebasing
    expect(describeRefusal(state)).toBe(
      'a rebase is in progress; finish it (git rebase --continue) or abort it yourself before running ralph',
    );
  });

  it('explains what to do when the directory is not a repository', async () => {
    await expect(repoState(tempDir())).rejects.toThrow(
      /git rev-parse --git-dir.*not a git repository.*git init/,
    );
  });
});

describe('commitAll and workingTreeChanges', () => {
  it('makes the first commit, leaving excluded runtime files uncommitted and unreported', async () => {
    const dir = freshRepo();
    write(dir, 'src/a.ts', 'export {};\n');
    write(dir, '.ralph/state.json', '{}\n');
    write(dir, '.ralph/logs/2026-01-01_001.log', 'log\n');
    write(dir, '.ralph/agent/scratchpad.md', 'notes\n');

    expect((await workingTreeChanges(dir, { exclude: EXCLUDE })).map((c) => c.path).sort()).toEqual([
      '.ralph/agent/scratchpad.md',
      'src/a.ts',
    ]);
    const { commit } = await commitAll(dir, 'ralph: first', { exclude: EXCLUDE });
    expect(commit).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(git(dir, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n').sort()).toEqual([
      '.ralph/agent/scratchpad.md',
      'src/a.ts',
    ]);
    // Still on disk, still untracked, but not "dirty" for Ralph.
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toContain('?? .ralph/state.json');
    expect(await workingTreeChanges(dir, { exclude: EXCLUDE })).toEqual([]);
    expect(await repoState(dir)).toEqual({ branch: 'main', head: commit, operation: null });
  });

  it('returns null when there is nothing to commit (also when only excluded files changed)', async () => {
    const dir = repoWithCommit();
    expect(await commitAll(dir, 'ralph: nothing', { exclude: EXCLUDE })).toEqual({ commit: null });
    write(dir, '.ralph/state.json', '{"iteration":2}\n');
    const before = git(dir, 'rev-parse', 'HEAD');
    expect(await commitAll(dir, 'ralph: nothing', { exclude: EXCLUDE })).toEqual({ commit: null });
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(before);
  });

  it('keeps a multi-line message intact', async () => {
    const dir = repoWithCommit();
    write(dir, 'api.ts', 'export const x = 1;\n');
    const message = [
      'ralph: implement user profile API endpoint',
      '',
      '- Added GET /api/users/:id endpoint',
      '- Includes "quotes", $dollars and `backticks`',
      '',
      'iteration: 3',
    ].join('\n');
    const { commit } = await commitAll(dir, message, { exclude: EXCLUDE });
    expect(commit).not.toBeNull();
    expect(git(dir, 'log', '-1', '--format=%B')).toBe(message);
  });

  it('commits deletions and files with spaces and glob characters in their names', async () => {
    const dir = repoWithCommit({ 'old.txt': 'x\n' });
    rmSync(join(dir, 'old.txt'));
    write(dir, 'dir with space/a*b.txt', 'y\n');
    const { commit } = await commitAll(dir, 'ralph: odd names', { exclude: ['a*b.txt'] });
    expect(commit).not.toBeNull();
    expect(git(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('dir with space/a*b.txt');
  });

  it('reports a staged rename as its deletion and its addition, and unstaged, untracked and added entries', async () => {
    const dir = repoWithCommit({
      'old name.txt': 'content that is long enough to be a rename\n',
      'm.txt': 'm\n',
    });
    git(dir, 'mv', 'old name.txt', 'new name.txt');
    write(dir, 'm.txt', 'changed\n');
    write(dir, 'untracked/deep/u.txt', 'u\n');
    write(dir, 'added.txt', 'a\n');
    git(dir, 'add', 'added.txt');

    const changes = await workingTreeChanges(dir, { exclude: [] });
    expect(changes).toEqual(
      expect.arrayContaining([
        { path: 'old name.txt', status: 'D.' },
        { path: 'new name.txt', status: 'A.' },
        { path: 'm.txt', status: '.M' },
        { path: 'added.txt', status: 'A.' },
        { path: 'untracked/deep/u.txt', status: '??' },
      ]),
    );
    expect(changes).toHaveLength(5);
  });

  it('takes excludes relative to a workspace inside the repository, and commits the whole repository', async () => {
    const dir = repoWithCommit();
    const workspace = join(dir, 'proj');
    write(workspace, 'app.ts', 'x\n');
    write(workspace, '.ralph/state.json', '{}\n');
    write(dir, '.ralph/state.json', 'not the workspace state\n');
    write(dir, 'top.txt', 'outside the workspace\n');

    expect((await workingTreeChanges(workspace, { exclude: EXCLUDE })).map((c) => c.path).sort()).toEqual([
      '.ralph/state.json',
      'proj/app.ts',
      'top.txt',
    ]);
    expect((await commitAll(workspace, 'ralph: sub', { exclude: EXCLUDE })).commit).not.toBeNull();
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual([
      '.ralph/state.json',
      'proj/app.ts',
      'top.txt',
    ]);
    expect(await workingTreeChanges(workspace, { exclude: EXCLUDE })).toEqual([]);
  });

  it('reports an actionable error when no identity is configured', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.useConfigOnly', 'true'); // no guessing from the host name
    write(dir, 'a.txt', 'a\n');
    vi.stubEnv('GIT_CONFIG_GLOBAL', '/dev/null');
    vi.stubEnv('GIT_CONFIG_NOSYSTEM', '1');
    for (const name of [
      'GIT_AUTHOR_NAME',
      'GIT_AUTHOR_EMAIL',
      'GIT_COMMITTER_NAME',
      'GIT_COMMITTER_EMAIL',
      'EMAIL',
    ]) {
      vi.stubEnv(name, undefined);
    }
    try {
      await expect(commitAll(dir, 'msg', { exclude: [] })).rejects.toThrow(
        /`git commit -q -F -` failed \(exit 128\).*git config user\.name/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('changedFilesBetween', () => {
  it('lists files changed between commits, from the root when `from` is null', async () => {
    const dir = repoWithCommit({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const first = git(dir, 'rev-parse', 'HEAD');
    write(dir, 'a.txt', 'a2\n');
    git(dir, 'mv', 'b.txt', 'c.txt');
    write(dir, 'd/e.txt', 'e\n');
    const { commit: second } = await commitAll(dir, 'second', { exclude: [] });

    expect((await changedFilesBetween(dir, first, second)).sort()).toEqual([
      'a.txt',
      'b.txt',
      'c.txt',
      'd/e.txt',
    ]);
    expect((await changedFilesBetween(dir, null, first)).sort()).toEqual(['a.txt', 'b.txt']);
    expect(await changedFilesBetween(dir, second, second)).toEqual([]);
    expect(await changedFilesBetween(dir, null, null)).toEqual([]);
  });
});

describe('pushWithRetry', () => {
  it('pushes to a local bare remote and sets the upstream; keeps commits when the remote is gone', async () => {
    const base = tempDir();
    const remote = join(base, 'remote.git');
    git(base, 'init', '-q', '--bare', remote);
    const dir = repoWithCommit();
    git(dir, 'remote', 'add', 'origin', remote);

    await pushWithRetry(dir, { remote: 'origin', branch: 'main', attempts: 3, delayMs: 0, redact: (t) => t });
    expect(git(dir, 'rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}')).toBe('origin/main');
    expect(git(remote, 'rev-parse', 'refs/heads/main')).toBe(git(dir, 'rev-parse', 'HEAD'));

    write(dir, 'next.txt', 'next\n');
    const { commit } = await commitAll(dir, 'ralph: next', { exclude: [] });
    renameSync(remote, join(base, 'moved.git'));

    const sleeps: number[] = [];
    const attempts: [number, RalphError][] = [];
    const error = await pushWithRetry(dir, {
      remote: 'origin',
      branch: 'main',
      attempts: 3,
      delayMs: 5000,
      redact: (t) => t,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      onAttempt: (n, err) => attempts.push([n, err]),
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RalphError);
    const ralphError = error as RalphError;
    expect(ralphError.code).toBe('git_push_failed');
    expect(ralphError.message).toMatch(
      /^git push to origin failed after 3 attempts: .*does not appear to be a git repository.*; your commits are kept locally — fix the remote and run `git push`$/,
    );
    expect(attempts.map(([n]) => n)).toEqual([1, 2, 3]);
    expect(attempts[0]![1].message).toContain('git push origin HEAD:refs/heads/main');
    expect(sleeps).toEqual([5000, 5000]); // between attempts, not after the last
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(commit);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('pushes HEAD to a new remote branch name', async () => {
    const base = tempDir();
    const remote = join(base, 'remote.git');
    git(base, 'init', '-q', '--bare', remote);
    const dir = repoWithCommit();
    git(dir, 'remote', 'add', 'origin', remote);
    await pushWithRetry(dir, {
      remote: 'origin',
      branch: 'ralph/work',
      attempts: 1,
      delayMs: 0,
      redact: (t) => t,
    });
    expect(git(remote, 'rev-parse', 'refs/heads/ralph/work')).toBe(git(dir, 'rev-parse', 'HEAD'));
  });
});
