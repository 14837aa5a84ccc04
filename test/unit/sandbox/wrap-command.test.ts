import { describe, expect, it } from 'vitest';
import { RalphError } from '../../../src/errors.ts';
import { sandboxPolicy } from '../../../src/sandbox/sandbox-policy.ts';
import { wrapCommand } from '../../../src/sandbox/wrap-command.ts';
import { sandboxInput } from '../../helpers/sandbox-input.ts';

const policy = sandboxPolicy(sandboxInput('/work/proj', '/home/dev'));
const cmd = { command: 'gemini', args: ['-p', 'x'] };
const all = () => true;

describe('wrapCommand', () => {
  it('wraps with bubblewrap on Linux and sandbox-exec on macOS', () => {
    expect(wrapCommand(policy, cmd, 'linux', { exists: all }).command).toBe('bwrap');
    expect(wrapCommand(policy, cmd, 'linux', { exists: all, bwrap: '/usr/bin/bwrap' }).command).toBe(
      '/usr/bin/bwrap',
    );
    expect(wrapCommand(policy, cmd, 'darwin').command).toBe('/usr/bin/sandbox-exec');
  });

  it('refuses other platforms with what to use instead', () => {
    expect(() => wrapCommand(policy, cmd, 'freebsd')).toThrow(RalphError);
    expect(() => wrapCommand(policy, cmd, 'win32')).toThrow(/no wrapper on win32.*sandbox: off or native/);
  });

  it('names a required path that is missing instead of letting bwrap fail', () => {
    const run = () => wrapCommand(policy, cmd, 'linux', { exists: (p) => p !== '/work/proj/.git/config' });
    expect(run).toThrow('sandbox: /work/proj/.git/config (git control file) does not exist');
    // Optional and placeholder rules are no reason to refuse.
    expect(() =>
      wrapCommand(policy, cmd, 'linux', { exists: (p) => !p.startsWith('/home/') && !p.endsWith('/hooks') }),
    ).not.toThrow();
  });
});
