import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { fakeConfig, makeWorkspace, RALPH, type RunResult, startProcess } from './workspace.ts';

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

/**
 * `ralph <args>` in a fresh committed repository (`repository: false`: a plain directory) whose
 * agent (`custom`, ./agent.sh) writes `agent` to git.log, behind a `git` first on PATH that logs
 * each call there as `git <args>`: the order of git calls and agent starts, and the run's result.
 */
export async function runWithGitLog(
  args: string[],
  o: { repository?: boolean } = {},
): Promise<{ log: string[]; result: RunResult }> {
  const dir = makeWorkspace({
    'agent.sh': '#!/bin/sh\necho agent >> git.log\n',
    'ralph.yml':
      'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\ncli:\n  backend: custom\n  command: ./agent.sh\n  prompt_mode: stdin\n',
  });
  chmodSync(join(dir, 'agent.sh'), 0o755);
  const run = (...a: string[]) => execFileSync('git', ['-C', dir, ...a], { stdio: 'ignore' });
  if (o.repository !== false) {
    run('init', '-q');
    writeFileSync(join(dir, '.gitignore'), '.ralph/\ngit.log\nshim/\n');
    run('add', '.');
    run('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
  }
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  mkdirSync(join(dir, 'shim'));
  writeFileSync(join(dir, 'shim', 'git'), `#!/bin/sh\necho "git $*" >> git.log\nexec ${realGit} "$@"\n`);
  chmodSync(join(dir, 'shim', 'git'), 0o755);
  const result = await startProcess(process.execPath, [RALPH, ...args], dir, {
    PATH: `${join(dir, 'shim')}${delimiter}${process.env.PATH}`,
  }).done;
  return { log: readFileSync(join(dir, 'git.log'), 'utf8').split('\n'), result };
}
