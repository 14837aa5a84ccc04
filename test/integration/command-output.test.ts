import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandOutput } from '../../src/process/command-runner.ts';
import { waitFor } from '../helpers/wait.ts';
import { makeWorkspace, pidAlive } from '../helpers/workspace.ts';

/** A fake CLI whose `--version` forks a sleeping grandchild (its pid in `grandchild.pid`), then runs `rest`. */
function forkingCli(rest: string): { dir: string; cli: string } {
  const dir = makeWorkspace();
  const cli = join(dir, 'agent-cli');
  writeFileSync(cli, `#!/bin/sh\nsleep 30 &\necho $! > "${dir}/grandchild.pid"\n${rest}\n`);
  chmodSync(cli, 0o755);
  return { dir, cli };
}

async function goneSoon(pid: number): Promise<boolean> {
  return waitFor(() => !pidAlive(pid), 2000, `pid ${pid} gone`).then(
    () => true,
    () => false,
  );
}

const grandchildOf = (dir: string) => Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));

describe('commandOutput (a --version probe)', () => {
  it('on its deadline kills the whole group: the CLI and the grandchild it forked', async () => {
    const { dir, cli } = forkingCli('echo "1.0 (never read)"\nwait');
    const started = Date.now();
    const out = await commandOutput(cli, ['--version'], { cwd: dir, env: process.env, timeoutMs: 300 });
    expect(out).toBeUndefined();
    // The grandchild holds stdout open for 30 s: the probe does not wait for it.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await goneSoon(grandchildOf(dir))).toBe(true);
  });

  it('answers as soon as the CLI exits, and what it left in its group dies', async () => {
    const { dir, cli } = forkingCli('echo "agent-cli 2.4.1"');
    const started = Date.now();
    const out = await commandOutput(cli, ['--version'], { cwd: dir, env: process.env, timeoutMs: 20_000 });
    expect(out).toBe('agent-cli 2.4.1\n');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await goneSoon(grandchildOf(dir))).toBe(true);
  });

  it('a failing or missing command has no output', async () => {
    const dir = makeWorkspace();
    const opts = { cwd: dir, env: process.env, timeoutMs: 5000 };
    expect(await commandOutput('sh', ['-c', 'echo 1.0; exit 3'], opts)).toBeUndefined();
    expect(await commandOutput(join(dir, 'no-such-cli'), ['--version'], opts)).toBeUndefined();
  });
});
