import { describe, expect, it } from 'vitest';
import type { CommandResult } from '../../../src/process/command-runner.ts';
import { BWRAP_TRIAL, probeSandbox } from '../../../src/sandbox/probe.ts';

const result = (over: Partial<CommandResult>): CommandResult => ({
  exitCode: 0,
  signal: null,
  killedBy: null,
  spawnError: undefined,
  stdout: '',
  stderr: '',
  truncated: false,
  ...over,
});

/** A fake runner: the trial answers `trial`, `--version` answers 0.8.0; records the calls. */
function fakeRun(trial: Partial<CommandResult>) {
  const calls: string[][] = [];
  const run = async (command: string, args: readonly string[]) => {
    calls.push([command, ...args]);
    return args[0] === '--version' ? result({ stdout: 'bubblewrap 0.8.0\n' }) : result(trial);
  };
  return { calls, run };
}
const found = () => ({ found: true as const, path: '/usr/bin/bwrap' });

describe('probeSandbox', () => {
  it('on Linux, finds bwrap and runs a real trial before saying yes', async () => {
    const { calls, run } = fakeRun({});
    expect(await probeSandbox({ platform: 'linux', env: {}, run, find: found })).toEqual({
      ok: true,
      tool: 'bwrap',
      path: '/usr/bin/bwrap',
      version: '0.8.0',
    });
    expect(calls[0]).toEqual(['/usr/bin/bwrap', ...BWRAP_TRIAL]);
  });

  it('names the install line when bwrap is missing', async () => {
    const probe = await probeSandbox({
      platform: 'linux',
      env: {},
      run: fakeRun({}).run,
      find: () => ({ found: false, detail: 'not on PATH' }),
    });
    expect(probe).toMatchObject({ ok: false, reason: 'missing', detail: 'bwrap (bubblewrap): not on PATH' });
    expect(probe.ok === false && probe.fix).toContain('sudo apt-get install bubblewrap');
  });

  it('names the kernel setting when user namespaces are off', async () => {
    for (const stderr of [
      'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.',
      'bwrap: setting up uid map: Permission denied',
      'bwrap: Creating new namespace failed: Operation not permitted',
    ]) {
      const probe = await probeSandbox({
        platform: 'linux',
        env: {},
        run: fakeRun({ exitCode: 1, stderr }).run,
        find: found,
      });
      expect(probe).toMatchObject({ ok: false, reason: 'userns' });
      expect(probe.ok === false && probe.fix).toContain('kernel.unprivileged_userns_clone=1');
      expect(probe.ok === false && probe.fix).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
    }
  });

  it('says what failed otherwise', async () => {
    const probe = await probeSandbox({
      platform: 'linux',
      env: {},
      run: fakeRun({ exitCode: 1, stderr: 'bwrap: odd\nmore' }).run,
      find: found,
    });
    expect(probe).toMatchObject({
      ok: false,
      reason: 'failed',
      detail: 'bwrap failed a trial run: bwrap: odd',
    });
  });

  it('on macOS looks for /usr/bin/sandbox-exec; elsewhere says the platform has none', async () => {
    expect(await probeSandbox({ platform: 'darwin', exists: () => true })).toEqual({
      ok: true,
      tool: 'sandbox-exec',
      path: '/usr/bin/sandbox-exec',
    });
    expect(await probeSandbox({ platform: 'darwin', exists: () => false })).toMatchObject({
      ok: false,
      reason: 'missing',
    });
    expect(await probeSandbox({ platform: 'freebsd' })).toMatchObject({
      ok: false,
      reason: 'platform',
      detail: 'no sandbox wrapper for freebsd',
    });
  });
});
