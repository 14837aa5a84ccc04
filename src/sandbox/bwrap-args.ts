import { depthOf } from './sandbox-paths.ts';
import { accessOf } from './sandbox-policy.ts';
import type { SandboxPolicy, SandboxRule, WrappedCommand } from './sandbox-types.ts';

/** How the wrapper is built beyond the policy. */
export interface BwrapOptions {
  /** The bwrap executable (default `bwrap`, found on PATH). */
  bwrap?: string | undefined;
  /** Where the command starts (default the policy's workspace). */
  cwd?: string | undefined;
  /** Whether a path exists now: a missing placeholder rule gets an empty read-only directory. Default: every path exists. */
  exists?: ((path: string) => boolean) | undefined;
  /** The agent's environment: a temp dir variable naming a place it cannot write is pointed at its /tmp. */
  env?: NodeJS.ProcessEnv | undefined;
}

/** The variables programs take their temp directory from (mkstemp, node's os.tmpdir, python). */
const TEMP_VARS = ['TMPDIR', 'TMP', 'TEMP'] as const;

/**
 * `--setenv NAME /tmp` for each temp variable naming a directory the agent cannot write (under the
 * hidden home, the host's /tmp, a read-only path): there every temp file would fail; /tmp is its own.
 */
function tempEnvArgs(policy: SandboxPolicy, env: NodeJS.ProcessEnv): string[] {
  return TEMP_VARS.flatMap((name) => {
    const value = env[name];
    if (!value?.startsWith('/') || value === '/tmp' || accessOf(policy, value).access === 'read-write')
      return [];
    return ['--setenv', name, '/tmp'];
  });
}

/**
 * The rules in mount order: parents before children (bwrap mounts in argument order, and a later
 * mount over a path hides the earlier), rules for one path in the policy's order, so the deeper
 * or later rule wins at the OS exactly as accessOf says.
 */
export function mountOrder(rules: readonly SandboxRule[]): SandboxRule[] {
  return rules
    .map((rule, i) => ({ rule, i }))
    .sort((a, b) => depthOf(a.rule.path) - depthOf(b.rule.path) || a.i - b.i)
    .map(({ rule }) => rule);
}

function mountArgs(rule: SandboxRule, exists: (path: string) => boolean): string[] {
  const p = rule.path;
  // An empty private directory in its place (a tmpfs): the home, /tmp. The policy hides only directories.
  if (rule.access === 'hidden') return ['--tmpfs', p];
  // Nothing there to guard yet: an empty read-only directory, so nothing can be planted there either.
  if (rule.placeholder && rule.access === 'read-only' && !exists(p)) return ['--tmpfs', p, '--remount-ro', p];
  const bind = rule.access === 'read-only' ? '--ro-bind' : '--bind';
  const base = [rule.optional ? `${bind}-try` : bind, p, p];
  // /dev and /proc fresh right over the read-only system, before anything deeper is mounted.
  return p === '/' ? [...base, '--dev', '/dev', '--proc', '/proc'] : base;
}

/**
 * The bubblewrap command (0.8.0's flags) that runs `command` under exactly `policy`. Pure. The
 * environment passes through. No `--new-session`: the agent must stay in the process group the
 * supervisor made for it (already a session of its own, with no terminal), so the group kill
 * reaches every process directly; `--die-with-parent` and the PID namespace take down the rest.
 */
export function bwrapArgs(
  policy: SandboxPolicy,
  command: WrappedCommand,
  opts: BwrapOptions = {},
): WrappedCommand {
  const exists = opts.exists ?? (() => true);
  // Run as root, bwrap makes no user namespace and the agent would keep root's capabilities: enough
  // to remount a read-only bind read-write (`mount -o remount,bind,rw`). None are kept.
  const args = ['--die-with-parent', '--unshare-pid', '--cap-drop', 'ALL'];
  if (policy.network === 'off') args.push('--unshare-net');
  args.push(...tempEnvArgs(policy, opts.env ?? {}));
  for (const rule of mountOrder(policy.rules)) args.push(...mountArgs(rule, exists));
  args.push('--chdir', opts.cwd ?? policy.workspace, '--', command.command, ...command.args);
  return { command: opts.bwrap ?? 'bwrap', args, contained: true };
}
