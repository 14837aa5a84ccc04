import { execFileSync } from 'node:child_process';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { fakeConfig, makeWorkspace } from './workspace.ts';

/** Runs git in `dir` and returns its stdout. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A temp git repository (branch main) with `files` committed as the initial commit (`name`: see makeWorkspace). */
export function makeGitWorkspace(files: Record<string, string>, name?: string): string {
  return initGitRepo(makeWorkspace(files, name));
}

/** Makes `dir` a git repository (branch main, a test identity) with its files as the initial commit. */
export function initGitRepo(dir: string): string {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Ralph Test');
  git(dir, 'config', 'user.email', 'ralph@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** Subjects of the commits on HEAD, newest first. */
export function subjects(dir: string): string[] {
  return git(dir, 'log', '--format=%s').trim().split('\n');
}

/**
 * A project for `--worktree`, as `ralph init` leaves it (committed, ignoring Ralph's runtime files,
 * worktrees/ included): one iteration writes feature.txt, commits it and completes.
 */
export const worktreeProject = {
  'PROMPT.md': 'work\n',
  '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
  'ralph.yml': `${fakeConfig({ max_iterations: 1 })}git:\n  commit: true\n`,
  'fake-agent.yml':
    'turns:\n  - do:\n      - write: { path: feature.txt, content: "from the worktree\\n" }\n      - print: LOOP_COMPLETE\n',
};
