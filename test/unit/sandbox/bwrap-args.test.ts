import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bwrapArgs, mountOrder } from '../../../src/sandbox/bwrap-args.ts';
import { accessOf, sandboxPolicy } from '../../../src/sandbox/sandbox-policy.ts';
import type { SandboxAccess, SandboxPolicy, SandboxRule } from '../../../src/sandbox/sandbox-types.ts';
import { sandboxInput } from '../../helpers/sandbox-input.ts';

const WS = '/work/proj';
const policy = sandboxPolicy(sandboxInput(WS, '/home/dev'));
const cmd = { command: 'claude', args: ['-p', 'hi there'] };

/** The mounts of a bwrap argument list, in order: [flag, dest]. */
function mounts(args: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') break;
    if (/^--(ro-)?bind(-try)?$/.test(a)) {
      out.push([a, args[i + 2] as string]);
      i += 2;
    } else if (['--tmpfs', '--dev', '--proc', '--remount-ro'].includes(a)) out.push([a, args[++i] as string]);
    else if (a === '--chdir') i++;
  }
  return out;
}

/** What the mounts give a path: the last mount at or above it (a later mount hides the earlier). */
function mountedAccess(args: string[], path: string): SandboxAccess {
  let got: SandboxAccess = 'hidden';
  for (const [flag, dest] of mounts(args)) {
    if (!(path === dest || path.startsWith(dest === '/' ? '/' : `${dest}/`))) continue;
    if (flag === '--tmpfs') got = 'hidden';
    else if (flag === '--remount-ro' || flag.startsWith('--ro-bind')) got = 'read-only';
    else if (flag.startsWith('--bind')) got = 'read-write';
  }
  return got;
}

describe('bwrapArgs', () => {
  it('points a temp dir variable the agent cannot write at its private /tmp, and keeps a writable one', () => {
    const env = {
      TMPDIR: '/home/dev/tmp',
      TMP: '/tmp/user-1000',
      TEMP: `${WS}/.cache/tmp`,
      HOME: '/home/dev',
    };
    const { args } = bwrapArgs(policy, cmd, { env });
    const setenv = args.flatMap((a, i) => (a === '--setenv' ? [args.slice(i + 1, i + 3)] : []));
    expect(setenv).toEqual([
      ['TMPDIR', '/tmp'],
      ['TMP', '/tmp'],
    ]);
    expect(bwrapArgs(policy, cmd, { env: { TMPDIR: '/tmp' } }).args).not.toContain('--setenv');
    expect(bwrapArgs(policy, cmd).args).not.toContain('--setenv');
  });

  it('starts with the process flags (every capability dropped), ends with the directory and the command, keeps --new-session out', () => {
    const { command, args } = bwrapArgs(policy, cmd);
    expect(command).toBe('bwrap');
    expect(args.slice(0, 4)).toEqual(['--die-with-parent', '--unshare-pid', '--cap-drop', 'ALL']);
    expect(args).not.toContain('--new-session');
    expect(args).not.toContain('--unshare-net');
    expect(args.slice(-6)).toEqual(['--chdir', WS, '--', 'claude', '-p', 'hi there']);
  });

  it('mounts the system read-only with fresh /dev and /proc first, then /tmp and home as empty tmpfs', () => {
    const { args } = bwrapArgs(policy, cmd, { bwrap: '/usr/bin/bwrap', cwd: `${WS}/sub` });
    expect(args.slice(4, 13)).toEqual([
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
    ]);
    expect(args).toContain('--chdir');
    expect(args[args.indexOf('--chdir') + 1]).toBe(`${WS}/sub`);
    expect(mounts(args)).toContainEqual(['--tmpfs', '/home/dev']);
    expect(mounts(args)).toContainEqual(['--bind-try', '/home/dev/.claude']);
    expect(mounts(args)).toContainEqual(['--ro-bind', `${WS}/.git/config`]);
    expect(mounts(args)).toContainEqual(['--bind', WS]);
  });

  it('cuts the network when the policy says off', () => {
    expect(bwrapArgs({ ...policy, network: 'off' }, cmd).args).toContain('--unshare-net');
  });

  it('stands an empty read-only directory in for a missing hooks/ or .ralph/, and skips nothing else', () => {
    const missing = new Set([`${WS}/.git/hooks`, `${WS}/.ralph`]);
    const { args } = bwrapArgs(policy, cmd, { exists: (p) => !missing.has(p) });
    const i = args.indexOf(`${WS}/.git/hooks`);
    expect(args.slice(i - 1, i + 3)).toEqual([
      '--tmpfs',
      `${WS}/.git/hooks`,
      '--remount-ro',
      `${WS}/.git/hooks`,
    ]);
    expect(mountedAccess(args, `${WS}/.ralph/state.json`)).toBe('read-only');
  });

  it('enforces at the mounts exactly what accessOf says, for the real policy', () => {
    const { args } = bwrapArgs(policy, cmd);
    for (const p of [
      '/usr/bin/git',
      `${WS}/a.ts`,
      `${WS}/.git/hooks/x`,
      `${WS}/.git/objects/1`,
      `${WS}/.ralph/agent/t`,
      `${WS}/.ralph/state.json`,
      '/home/dev/.ssh/id_rsa',
      '/home/dev/.claude/x',
      '/tmp/y',
    ])
      expect([p, mountedAccess(args, p)]).toEqual([p, accessOf(policy, p).access]);
  });

  it('mounts parents before children for any rules, so the OS agrees with accessOf on every path', () => {
    const seg = fc.constantFrom('a', 'b', 'c');
    const path = fc.array(seg, { maxLength: 4 }).map((s) => `/${s.join('/')}`.replace(/^\/$/, '/'));
    const rule = fc.record({
      path,
      access: fc.constantFrom<SandboxAccess>('read-only', 'read-write', 'hidden'),
      reason: fc.constant('r'),
    });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), path, (rules: SandboxRule[], probe) => {
        const p: SandboxPolicy = {
          workspace: '/',
          home: '/h',
          network: 'on',
          rules: [{ path: '/', access: 'read-only', reason: 's' }, ...rules],
        };
        const order = mountOrder(p.rules);
        const above = (a: string, b: string) => a !== b && (a === '/' || b.startsWith(`${a}/`));
        order.forEach((later, j) => {
          for (const earlier of order.slice(0, j)) expect(above(later.path, earlier.path)).toBe(false);
        });
        expect(mountedAccess(bwrapArgs(p, cmd).args, probe)).toBe(accessOf(p, probe).access);
      }),
      { numRuns: 300 },
    );
  });
});
