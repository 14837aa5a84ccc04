import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll } from '../../src/git/commit.ts';
import { pushWithRetry } from '../../src/git/push.ts';
import { runGit } from '../../src/git/run-git.ts';
import { changedFilesBetween, workingTreeChanges } from '../../src/git/working-tree.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// What an agent can write into `.git/` must never run inside Ralph's own git calls: every program
// below leaves a file in .git/ran/ when it runs, and the test fails if one is there.

/** A committed repository with a `.git/ran/` directory for the planted programs' marks. */
function repository(): string {
  const dir = makeGitWorkspace({ 'a.txt': 'one\n' });
  mkdirSync(join(dir, '.git', 'ran'));
  return dir;
}

/** A shell script at `path` that leaves its name in .git/ran/ and then does `then`. */
function plant(dir: string, path: string, name: string, then = 'exit 0'): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\ntouch "${join(dir, '.git', 'ran', name)}"\n${then}\n`);
  chmodSync(path, 0o755);
  return path;
}

const ran = (dir: string) => readdirSync(join(dir, '.git', 'ran')).sort();

const HOOKS = ['pre-commit', 'commit-msg', 'prepare-commit-msg', 'post-commit', 'reference-transaction'];

describe("Ralph's own git calls ignore what the repository says to run", () => {
  it('runs no hook of .git/hooks, nor of a core.hooksPath the repository sets', async () => {
    const dir = repository();
    for (const hook of HOOKS) plant(dir, join(dir, '.git', 'hooks', hook), hook, 'exit 1');
    for (const hook of HOOKS) plant(dir, join(dir, '.git', 'evil-hooks', hook), `path-${hook}`, 'exit 1');
    git(dir, 'config', 'core.hooksPath', join(dir, '.git', 'evil-hooks'));
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    const { commit } = await commitAll(dir, 'ralph: change a', { exclude: [] });
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('ralph: change a\n');
    expect(ran(dir)).toEqual([]);
  });

  it('runs no pre-push hook', async () => {
    const dir = repository();
    const remote = makeWorkspace();
    execFileSync('git', ['init', '-q', '--bare', remote]);
    git(dir, 'remote', 'add', 'origin', remote);
    plant(dir, join(dir, '.git', 'hooks', 'pre-push'), 'pre-push', 'exit 1');
    await pushWithRetry(dir, { remote: 'origin', branch: 'main', attempts: 1, delayMs: 0, redact: (t) => t });
    expect(git(remote, 'rev-parse', 'main')).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(ran(dir)).toEqual([]);
  });

  it('runs no fsmonitor command, external diff, textconv or pager', async () => {
    const dir = repository();
    git(dir, 'config', 'core.fsmonitor', plant(dir, join(dir, '.git', 'fsmonitor'), 'fsmonitor'));
    git(dir, 'config', 'diff.external', plant(dir, join(dir, '.git', 'ext-diff'), 'ext-diff'));
    git(
      dir,
      'config',
      'diff.evil.textconv',
      plant(dir, join(dir, '.git', 'textconv'), 'textconv', 'cat "$1"'),
    );
    git(dir, 'config', 'core.pager', plant(dir, join(dir, '.git', 'pager'), 'pager', 'cat'));
    writeFileSync(join(dir, '.git', 'info', 'attributes'), '* diff=evil\n');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    expect(await workingTreeChanges(dir, { exclude: [] })).toEqual([{ path: 'a.txt', status: '.M' }]);
    expect(await runGit(dir, ['diff', '--no-color', before, '--'])).toContain('+two');
    const { commit } = await commitAll(dir, 'ralph: change a', { exclude: [] });
    expect(await changedFilesBetween(dir, before, commit)).toEqual(['a.txt']);
    expect(await runGit(dir, ['log', '-1', '--patch', '--format=%s'])).toContain('+two');
    expect(ran(dir)).toEqual([]);
  });

  it('sees through `git replace`: a commit replaced by its parent still shows its change', async () => {
    const dir = repository();
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'key'), 'hunter2\n');
    git(dir, 'add', 'secrets/key');
    git(dir, 'commit', '-q', '-m', 'nothing to see');
    git(dir, 'replace', 'HEAD', 'HEAD~1');
    // Plain git is fooled; Ralph's calls are not.
    expect(git(dir, 'diff', '--name-only', before, 'HEAD')).toBe('');
    expect(await changedFilesBetween(dir, before, git(dir, 'rev-parse', 'HEAD').trim())).toEqual([
      'secrets/key',
    ]);
  });

  it('leaves the agent’s own git alone: the same repository still runs its hooks for plain git', () => {
    const dir = repository();
    plant(dir, join(dir, '.git', 'hooks', 'pre-commit'), 'pre-commit');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'by the agent');
    expect(existsSync(join(dir, '.git', 'ran', 'pre-commit'))).toBe(true);
  });
});
