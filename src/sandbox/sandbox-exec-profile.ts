import { mountOrder } from './bwrap-args.ts';
import type { SandboxPolicy, SandboxRule, WrappedCommand } from './sandbox-types.ts';

/** An SBPL string literal. */
function quote(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** macOS's /tmp, /var and /etc are links into /private, and the sandbox matches the real path. */
function subpaths(path: string): string {
  const real = /^\/(tmp|var|etc)(\/|$)/.test(path) ? [path, `/private${path}`] : [path];
  return real.map((p) => `(subpath ${quote(p)})`).join(' ');
}

function ruleForms(rule: SandboxRule): string[] {
  const at = subpaths(rule.path);
  // macOS has no private /tmp: the shared temp dirs stay writable (docs/guide/sandbox.md).
  if (rule.path === '/tmp') return [`(allow file-read* file-write* ${at} (subpath "/private/var/folders"))`];
  if (rule.access === 'hidden')
    // Contents and listings denied; a stat of the path itself stays allowed, so paths below it resolve.
    return [`(deny file-read-data file-read-xattr file-write* ${at})`];
  if (rule.access === 'read-only') return [`(allow file-read* ${at})`, `(deny file-write* ${at})`];
  return [`(allow file-read* file-write* ${at})`];
}

/**
 * The sandbox-exec (SBPL) profile of `policy`: the same rules in the same order, where a later
 * rule wins for the paths it names as a deeper mount does under bubblewrap. Pure; not tried on a
 * Mac here (docs/guide/sandbox.md).
 */
export function sandboxExecProfile(policy: SandboxPolicy): string {
  const forms = ['(version 1)', '(allow default)'];
  for (const rule of mountOrder(policy.rules)) {
    forms.push(...ruleForms(rule));
    // The devices every program writes to, once the system is read-only.
    if (rule.path === '/')
      forms.push(
        '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
      );
  }
  if (policy.network === 'off')
    forms.push(
      '(deny network-outbound (remote ip))',
      '(deny network-inbound (local ip))',
      '(deny network-bind (local ip))',
    );
  return `${forms.join('\n')}\n`;
}

/** `sandbox-exec -p PROFILE command args…`. */
export function sandboxExecArgs(policy: SandboxPolicy, command: WrappedCommand): WrappedCommand {
  return {
    command: '/usr/bin/sandbox-exec',
    args: ['-p', sandboxExecProfile(policy), command.command, ...command.args],
  };
}
