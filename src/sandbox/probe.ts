import { runCommand } from '../process/command-runner.ts';
import type { SandboxProbe } from './sandbox-types.ts';

let cached: Promise<SandboxProbe> | undefined;

async function probe(): Promise<SandboxProbe> {
  if (process.platform !== 'linux')
    return {
      ok: false,
      reason: 'platform',
      detail: `no sandbox wrapper on ${process.platform}`,
      fix: 'use sandbox: off or native',
    };
  const result = await runCommand('bwrap', ['--ro-bind', '/', '/', 'true'], {
    env: process.env,
    timeoutMs: 10_000,
  });
  if (result.spawnError !== undefined)
    return {
      ok: false,
      reason: 'missing',
      detail: 'bwrap is not on PATH',
      fix: 'install bubblewrap: sudo apt-get install bubblewrap',
    };
  if (result.exitCode !== 0)
    return {
      ok: false,
      reason: 'userns',
      detail: `bwrap failed: ${result.stderr.trim()}`,
      fix: 'allow unprivileged user namespaces: sudo sysctl kernel.unprivileged_userns_clone=1',
    };
  return { ok: true, tool: 'bwrap', path: 'bwrap' };
}

/** Whether `sandbox: on` works here (asked once per process). */
export function probeSandbox(): Promise<SandboxProbe> {
  cached ??= probe();
  return cached;
}
