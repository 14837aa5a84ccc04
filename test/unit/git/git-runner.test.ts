import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gitArgs, gitEnv } from '../../../src/git/run-git.ts';

const HARDENING = [
  '-C',
  '/repo',
  '--no-pager',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'gc.autoDetach=false',
];

describe('gitArgs: what every git call of Ralph runs with', () => {
  it('puts the hardening before the subcommand: -c wins over .git/config and its includes', () => {
    expect(gitArgs('/repo', ['status', '--porcelain=v2'])).toEqual([
      ...HARDENING,
      'status',
      '--porcelain=v2',
    ]);
    expect(gitArgs('/repo', [])).toEqual(HARDENING);
  });

  it('skips the hooks of commit, push and merge again with --no-verify', () => {
    expect(gitArgs('/repo', ['commit', '-q', '-F', '-']).slice(HARDENING.length)).toEqual([
      'commit',
      '--no-verify',
      '-q',
      '-F',
      '-',
    ]);
    expect(gitArgs('/repo', ['push', 'origin', 'HEAD:refs/heads/main']).slice(HARDENING.length)).toEqual([
      'push',
      '--no-verify',
      'origin',
      'HEAD:refs/heads/main',
    ]);
    expect(gitArgs('/repo', ['merge', '--ff-only', '-q', 'abc']).slice(HARDENING.length)).toEqual([
      'merge',
      '--no-verify',
      '--ff-only',
      '-q',
      'abc',
    ]);
  });

  it('leaves merge --abort/--quit/--continue alone (git refuses any other option with them)', () => {
    for (const control of ['--abort', '--quit', '--continue'])
      expect(gitArgs('/repo', ['merge', control]).slice(HARDENING.length)).toEqual(['merge', control]);
  });

  it('runs no external diff or textconv program in diff, log and show', () => {
    for (const sub of ['diff', 'log', 'show'])
      expect(gitArgs('/repo', [sub, 'HEAD']).slice(HARDENING.length)).toEqual([
        sub,
        '--no-ext-diff',
        '--no-textconv',
        'HEAD',
      ]);
  });

  it('keeps every argument of the call, in order, after the hardening (property)', () => {
    const arg = fc.oneof(
      fc.constantFrom(
        'commit',
        'push',
        'merge',
        'diff',
        'log',
        'show',
        'status',
        '--abort',
        '-c',
        '--',
        'constructor',
        'toString',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.array(arg, { maxLength: 8 }), (root, args) => {
        const out = gitArgs(root, args);
        expect(out.slice(0, HARDENING.length)).toEqual(['-C', root, ...HARDENING.slice(2)]);
        const call = out.slice(HARDENING.length);
        // The call's own arguments are a subsequence: only the known flags were added.
        let i = 0;
        for (const a of call) if (i < args.length && a === args[i]) i++;
        expect(i).toBe(args.length);
        const added = call.length - args.length;
        expect(added).toBeLessThanOrEqual(2);
        if (added > 0) expect(call[0]).toBe(args[0]);
      }),
    );
  });
});

describe('gitEnv: the environment of Ralph’s own git calls', () => {
  it('ignores replace refs, never opens an editor or prompts, and keeps the user’s settings', () => {
    const env = gitEnv({
      HOME: '/home/u',
      GIT_AUTHOR_NAME: 'Ann',
      GIT_CONFIG_GLOBAL: '/home/u/.gitconfig',
      GIT_DIR: '/elsewhere/.git',
      GIT_WORK_TREE: '/elsewhere',
      GIT_INDEX_FILE: '/elsewhere/index',
    });
    expect(env).toMatchObject({
      HOME: '/home/u',
      GIT_AUTHOR_NAME: 'Ann',
      GIT_CONFIG_GLOBAL: '/home/u/.gitconfig',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_EDITOR: 'true',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
      LC_ALL: 'C',
    });
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_WORK_TREE).toBeUndefined();
    expect(env.GIT_INDEX_FILE).toBeUndefined();
  });

  it('does not change the environment it is given (the agent’s is built from the same one)', () => {
    const base = { GIT_DIR: '/x/.git', PATH: '/bin' };
    gitEnv(base);
    expect(base).toEqual({ GIT_DIR: '/x/.git', PATH: '/bin' });
  });
});
