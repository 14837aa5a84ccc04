import { describe, expect, it } from 'vitest';
import { sandboxExecArgs, sandboxExecProfile } from '../../../src/sandbox/sandbox-exec-profile.ts';
import { sandboxPolicy } from '../../../src/sandbox/sandbox-policy.ts';
import { sandboxInput } from '../../helpers/sandbox-input.ts';

const WS = '/Users/dev/proj';
const HOME = '/Users/dev';
const policy = sandboxPolicy(sandboxInput(WS, HOME));
const profile = sandboxExecProfile(policy);
const lines = profile.trim().split('\n');
const at = (form: string) => {
  const i = lines.indexOf(form);
  expect(i, form).toBeGreaterThan(-1);
  return i;
};

describe('sandboxExecProfile', () => {
  it('allows by default, then makes the system read-only but for the devices', () => {
    expect(lines.slice(0, 4)).toEqual([
      '(version 1)',
      '(allow default)',
      '(allow file-read* (subpath "/"))',
      '(deny file-write* (subpath "/"))',
    ]);
    expect(lines[4]).toMatch(/^\(allow file-write\* \(literal "\/dev\/null"\)/);
  });

  it('hides the home, then lets the agent CLI config, the workspace in, later rules winning', () => {
    const home = at(`(deny file-read-data file-read-xattr file-write* (subpath "${HOME}"))`);
    const claude = at(`(allow file-read* file-write* (subpath "${HOME}/.claude"))`);
    const work = at(`(allow file-read* file-write* (subpath "${WS}"))`);
    const hooks = at(`(deny file-write* (subpath "${WS}/.git/hooks"))`);
    const ralph = at(`(deny file-write* (subpath "${WS}/.ralph"))`);
    const agent = at(`(allow file-read* file-write* (subpath "${WS}/.ralph/agent"))`);
    expect(home).toBeLessThan(claude);
    expect(home).toBeLessThan(work);
    expect(work).toBeLessThan(hooks);
    expect(ralph).toBeLessThan(agent);
  });

  it('keeps the shared temp dirs writable (macOS has no private /tmp) with their /private names', () => {
    at(
      '(allow file-read* file-write* (subpath "/tmp") (subpath "/private/tmp") (subpath "/private/var/folders"))',
    );
  });

  it('denies the network only when off, and quotes paths', () => {
    expect(profile).not.toContain('network');
    const off = sandboxExecProfile({ ...policy, network: 'off' });
    expect(off).toContain('(deny network-outbound (remote ip))');
    expect(off).toContain('(deny network-bind (local ip))');
    const odd = sandboxExecProfile(sandboxPolicy(sandboxInput('/Users/dev/my "q" \\dir', HOME)));
    expect(odd).toContain('(subpath "/Users/dev/my \\"q\\" \\\\dir")');
  });

  it('runs the command through /usr/bin/sandbox-exec -p', () => {
    expect(sandboxExecArgs(policy, { command: 'codex', args: ['exec', 'x'] })).toEqual({
      command: '/usr/bin/sandbox-exec',
      args: ['-p', profile, 'codex', 'exec', 'x'],
    });
  });
});
