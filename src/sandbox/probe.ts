import { existsSync } from 'node:fs';
import {
  type CommandResult,
  type RunCommandOptions,
  runCommand,
  succeeded,
} from '../process/command-runner.ts';
import { findExecutable } from '../process/find-executable.ts';
import type { SandboxProbe } from './sandbox-types.ts';

/** What probeSandbox touches, injectable for tests. */
export interface SandboxProbeDeps {
  platform?: NodeJS.Platform | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  run?:
    | ((command: string, args: readonly string[], options: RunCommandOptions) => Promise<CommandResult>)
    | undefined;
  find?: typeof findExecutable | undefined;
  exists?: ((path: string) => boolean) | undefined;
}

const INSTALL_BWRAP =
  'sudo apt-get install bubblewrap (Debian, Ubuntu); sudo dnf install bubblewrap (Fedora); sudo pacman -S bubblewrap (Arch)';
const ENABLE_USERNS =
  'sudo sysctl -w kernel.unprivileged_userns_clone=1 (Debian); sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04+); sudo sysctl -w user.max_user_namespaces=15000 (when it is 0); in a container, run it with --security-opt seccomp=unconfined';
/** What bwrap says when the kernel (or a container's seccomp) refuses it the namespaces it needs. */
const USERNS_REFUSED = /No permissions to creat|setting up uid map|Operation not permitted|user namespace/i;
/** The least a sandboxed agent needs: the system read-only, fresh /dev and /proc, its own PID namespace. */
export const BWRAP_TRIAL = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-pid',
  '--die-with-parent',
  'true',
];
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

async function probeBwrap(deps: SandboxProbeDeps): Promise<SandboxProbe> {
  const env = deps.env ?? process.env;
  const run = deps.run ?? runCommand;
  const found = (deps.find ?? findExecutable)('bwrap', env.PATH, '/');
  if (!found.found)
    return {
      ok: false,
      reason: 'missing',
      detail: `bwrap (bubblewrap): ${found.detail}`,
      fix: INSTALL_BWRAP,
    };
  const options = { env, timeoutMs: 10_000, cwd: '/' };
  const trial = await run(found.path, BWRAP_TRIAL, options);
  if (!succeeded(trial)) {
    const said =
      (trial.stderr.trim().split('\n')[0] ?? '') || trial.spawnError?.message || `exit ${trial.exitCode}`;
    if (USERNS_REFUSED.test(said))
      return {
        ok: false,
        reason: 'userns',
        detail: `bwrap cannot create its namespaces: ${said}`,
        fix: ENABLE_USERNS,
      };
    return {
      ok: false,
      reason: 'failed',
      detail: `bwrap failed a trial run: ${said}`,
      fix: `run \`${found.path} ${BWRAP_TRIAL.join(' ')}\` to see why`,
    };
  }
  const version = await run(found.path, ['--version'], options);
  const v = /(\d+\.\d+(?:\.\d+)?)/.exec(version.stdout)?.[1];
  return { ok: true, tool: 'bwrap', path: found.path, version: v };
}

/** Whether `sandbox: on` can work on this machine, and if not, the install line or kernel setting that fixes it. */
export async function probeSandboxWith(deps: SandboxProbeDeps): Promise<SandboxProbe> {
  const platform = deps.platform ?? process.platform;
  if (platform === 'linux') return probeBwrap(deps);
  if (platform === 'darwin')
    return (deps.exists ?? existsSync)(SANDBOX_EXEC)
      ? { ok: true, tool: 'sandbox-exec', path: SANDBOX_EXEC }
      : {
          ok: false,
          reason: 'missing',
          detail: `${SANDBOX_EXEC} is missing`,
          fix: 'sandbox-exec ships with macOS; reinstall the command line tools, or use sandbox: off',
        };
  return {
    ok: false,
    reason: 'platform',
    detail: `no sandbox wrapper for ${platform}`,
    fix: 'use sandbox: off or native, or run Ralph on Linux (WSL 2 on Windows) with bubblewrap',
  };
}

let cached: Promise<SandboxProbe> | undefined;

/**
 * Whether `sandbox: on` can work here: bwrap on PATH and a trial run of it (Linux), sandbox-exec
 * (macOS). Without `deps` the answer is probed once per process (a run's start and doctor share it).
 */
export function probeSandbox(deps?: SandboxProbeDeps): Promise<SandboxProbe> {
  if (deps !== undefined) return probeSandboxWith(deps);
  cached ??= probeSandboxWith({});
  return cached;
}
