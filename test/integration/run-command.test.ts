import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGitRaw } from '../../src/git/run-git.ts';
import { runCommand, succeeded } from '../../src/process/command-runner.ts';
import { makeWorkspace, pidAlive, waitFor } from '../helpers/workspace.ts';

// The one runner of one-shot commands (src/process/command-runner.ts), and git on it.

/** `sh -c` that forks a sleeping grandchild (its pid in `grandchild.pid`) and then runs `rest`. */
const forking = (dir: string, rest: string) => `sleep 30 & echo $! > "${dir}/grandchild.pid"; ${rest}`;

async function grandchild(dir: string): Promise<number> {
  const file = join(dir, 'grandchild.pid');
  await waitFor(
    () => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'),
    10_000,
    'grandchild.pid',
  );
  return Number(readFileSync(file, 'utf8'));
}

describe('runCommand', () => {
  it('answers a non-zero exit with its code and both streams, never an exception', async () => {
    const dir = makeWorkspace();
    const r = await runCommand('sh', ['-c', 'cat; echo "$RC_VAR in $(pwd)" >&2; exit 3'], {
      cwd: dir,
      env: { ...process.env, RC_VAR: 'set' },
      input: 'from stdin',
    });
    expect(r).toMatchObject({
      exitCode: 3,
      signal: null,
      killedBy: null,
      stdout: 'from stdin',
      truncated: false,
    });
    expect(r.stderr).toBe(`set in ${dir}\n`);
    expect(succeeded(r)).toBe(false);
  });

  it('says when a program cannot start', async () => {
    const r = await runCommand(join(makeWorkspace(), 'no-such-program'), [], { env: process.env });
    expect((r.spawnError as NodeJS.ErrnoException | undefined)?.code).toBe('ENOENT');
    expect(succeeded(r)).toBe(false);
  });

  it('keeps the last maxOutputChars of each stream and says it cut them', async () => {
    const r = await runCommand('sh', ['-c', 'printf "%05000d" 0; printf "tail"'], {
      env: process.env,
      maxOutputChars: 100,
    });
    expect(r.stdout).toHaveLength(100);
    expect(r.stdout.endsWith('0000tail')).toBe(true);
    expect(r.truncated).toBe(true);
    expect(succeeded(r)).toBe(true);
  });

  it('on an abort kills the whole group: the command and the grandchild it forked', async () => {
    const dir = makeWorkspace();
    const abort = new AbortController();
    const running = runCommand('sh', ['-c', forking(dir, 'wait')], {
      env: process.env,
      signal: abort.signal,
    });
    const pid = await grandchild(dir);
    abort.abort();
    const r = await running;
    expect(r.killedBy).toBe('abort');
    await waitFor(() => !pidAlive(pid), 5000, 'the grandchild gone');
  });
});

describe('git on the runner', () => {
  it('a git call past its deadline is killed with its whole group, not only git itself', async () => {
    const dir = makeWorkspace();
    // A shell alias runs in git's group: before the runner, SIGTERM reached git and left the rest.
    const alias = `alias.hang=!${forking(dir, 'wait')}`;
    const r = await runGitRaw(dir, ['-c', alias, 'hang'], { timeoutMs: 500 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBe(-1);
    const pid = await grandchild(dir);
    await waitFor(() => !pidAlive(pid), 5000, 'the alias’s grandchild gone');
  });

  it('keeps git’s whole output, however long (it is parsed, never cut)', async () => {
    const dir = makeWorkspace();
    const r = await runGitRaw(dir, ['-c', `alias.big=!printf "%0200000d" 0`, 'big']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toHaveLength(200_000);
  });
});
