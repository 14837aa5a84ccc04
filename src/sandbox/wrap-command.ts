import { existsSync } from 'node:fs';
import { RalphError } from '../errors.ts';
import { type BwrapOptions, bwrapArgs } from './bwrap-args.ts';
import { sandboxExecArgs } from './sandbox-exec-profile.ts';
import type { SandboxPolicy, WrappedCommand } from './sandbox-types.ts';

/** Beyond the policy: the bwrap found by probeSandbox, the directory to start in, the existence check. */
export type WrapOptions = BwrapOptions;

/**
 * A required rule's path that is missing would make bwrap fail with a line naming no setting:
 * say which file and why instead (the workspace, the repository's `.git/config`).
 */
function refuseMissing(policy: SandboxPolicy, exists: (path: string) => boolean): void {
  const missing = policy.rules.find(
    (r) => !r.optional && !r.placeholder && r.access !== 'hidden' && !exists(r.path),
  );
  if (missing)
    throw new RalphError(
      'preflight',
      `sandbox: ${missing.path} (${missing.reason}) does not exist, so it cannot be guarded; create it or run with --no-sandbox`,
    );
}

/**
 * `command` wrapped to run under `policy`: bubblewrap on Linux, sandbox-exec on macOS. Reads only
 * whether the policy's paths exist. Elsewhere throws `unsupported_platform` (a run refuses earlier,
 * at start, through probeSandbox).
 */
export function wrapCommand(
  policy: SandboxPolicy,
  command: WrappedCommand,
  platform: NodeJS.Platform = process.platform,
  opts: WrapOptions = {},
): WrappedCommand {
  if (platform === 'linux') {
    const exists = opts.exists ?? existsSync;
    refuseMissing(policy, exists);
    return bwrapArgs(policy, command, { ...opts, exists });
  }
  if (platform === 'darwin') return sandboxExecArgs(policy, command);
  throw new RalphError(
    'unsupported_platform',
    `sandbox: on has no wrapper on ${platform} (bubblewrap on Linux, sandbox-exec on macOS); use sandbox: off or native`,
  );
}
