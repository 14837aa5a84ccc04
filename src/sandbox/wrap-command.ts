import type { SandboxPolicy, WrappedCommand } from './sandbox-types.ts';

const BWRAP_FLAG = { 'read-write': '--bind-try', 'read-only': '--ro-bind-try' } as const;

function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = ['--die-with-parent', '--dev', '/dev', '--proc', '/proc'];
  if (policy.network === 'off') args.push('--unshare-net');
  for (const rule of policy.rules) {
    if (rule.path === '/') args.splice(0, 0, '--ro-bind', '/', '/');
    else if (rule.access === 'hidden') args.push('--tmpfs', rule.path);
    else args.push(BWRAP_FLAG[rule.access], rule.path, rule.path);
  }
  return args;
}

function seatbeltProfile(policy: SandboxPolicy): string {
  const quote = (p: string) => JSON.stringify(p);
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  for (const rule of policy.rules) {
    if (rule.path === '/') continue;
    if (rule.access === 'hidden') lines.push(`(deny file-read* file-write* (subpath ${quote(rule.path)}))`);
    if (rule.access === 'read-write')
      lines.push(`(allow file-read* file-write* (subpath ${quote(rule.path)}))`);
    if (rule.access === 'read-only') lines.push(`(deny file-write* (subpath ${quote(rule.path)}))`);
  }
  if (policy.network === 'off') lines.push('(deny network*)');
  return lines.join('\n');
}

/** The agent's command inside the sandbox: bwrap on Linux, sandbox-exec on macOS. */
export function wrapCommand(
  policy: SandboxPolicy,
  command: WrappedCommand,
  platform: NodeJS.Platform = process.platform,
): WrappedCommand {
  if (platform === 'linux')
    return { command: 'bwrap', args: [...bwrapArgs(policy), '--', command.command, ...command.args] };
  if (platform === 'darwin')
    return {
      command: 'sandbox-exec',
      args: ['-p', seatbeltProfile(policy), command.command, ...command.args],
    };
  throw new Error(`sandbox: on has no wrapper on ${platform}: use sandbox: off or native`);
}
