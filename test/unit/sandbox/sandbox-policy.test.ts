import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, RalphError } from '../../../src/errors.ts';
import { accessOf, describePolicy, sandboxPolicy } from '../../../src/sandbox/sandbox-policy.ts';
import { SECRET_HOME_PATHS } from '../../../src/sandbox/sandbox-secrets.ts';
import type { SandboxPolicy } from '../../../src/sandbox/sandbox-types.ts';
import { sandboxInput } from '../../helpers/sandbox-input.ts';

const WS = '/work/proj';
const HOME = '/home/dev';
const access = (policy: SandboxPolicy, path: string) => accessOf(policy, path).access;
const reason = (policy: SandboxPolicy, path: string) => accessOf(policy, path).rule?.reason;

describe('sandboxPolicy', () => {
  const policy = sandboxPolicy(
    sandboxInput(WS, HOME, {
      protectedPaths: [`${WS}/test/app.test.ts`],
      gateFiles: [`${WS}/scripts/check.sh`],
      runtimeReadOnly: [`${HOME}/.nvm`],
      agentWritable: [`${WS}/.ralph/agent`, `${WS}/.ralph/events-20260101-000000.jsonl`],
    }),
  );

  it('lets the agent write its work, and commit (objects, refs, index, HEAD)', () => {
    for (const p of [
      `${WS}/src/a.ts`,
      `${WS}/.git/objects/ab/cd`,
      `${WS}/.git/refs/heads/main`,
      `${WS}/.git/index`,
      `${WS}/.git/HEAD`,
    ])
      expect(access(policy, p), p).toBe('read-write');
    expect(reason(policy, `${WS}/src/a.ts`)).toBe('your work');
  });

  it("keeps git's control files, .ralph/, config, prompt, protected and gate files read-only", () => {
    const cases: [string, string][] = [
      [`${WS}/.git/hooks/pre-commit`, 'git control file'],
      [`${WS}/.git/config`, 'git control file'],
      [`${WS}/.git/info/exclude`, 'git control file'],
      [`${WS}/.ralph/state.json`, "Ralph's state"],
      [`${WS}/.ralph/loop.lock`, "Ralph's state"],
      [`${WS}/ralph.yml`, 'config'],
      [`${WS}/PROMPT.md`, 'prompt'],
      [`${WS}/test/app.test.ts`, 'protected (gates.protect)'],
      [`${WS}/scripts/check.sh`, 'gate command'],
      ['/usr/bin/env', 'system, read-only'],
      [`${HOME}/.nvm/versions/node`, 'runtime (node, ralph, the agent CLI)'],
      [`${HOME}/.gitconfig`, 'your git identity'],
    ];
    for (const [p, why] of cases)
      expect([p, access(policy, p), reason(policy, p)]).toEqual([p, 'read-only', why]);
  });

  it("opens the agent's own files under .ralph/ and its CLI's config", () => {
    expect(access(policy, `${WS}/.ralph/agent/tasks.jsonl`)).toBe('read-write');
    expect(access(policy, `${WS}/.ralph/events-20260101-000000.jsonl`)).toBe('read-write');
    expect(accessOf(policy, `${HOME}/.claude/settings.json`)).toMatchObject({
      access: 'read-write',
      rule: { reason: 'agent CLI config', optional: true },
    });
  });

  it('hides the home directory, every credential store in it, and the host /tmp', () => {
    for (const rel of SECRET_HOME_PATHS) expect(access(policy, `${HOME}/${rel}`), rel).toBe('hidden');
    expect(access(policy, `${HOME}/notes.txt`)).toBe('hidden');
    expect(access(policy, '/tmp/x')).toBe('hidden');
    expect(policy.network).toBe('on');
  });

  it('guards a worktree: its common git dir writable but for its control files and other worktrees', () => {
    const wt = '/repo/.ralph/worktrees/w1';
    const p = sandboxPolicy(
      sandboxInput(wt, HOME, {
        gitDir: '/repo/.git/worktrees/w1',
        gitCommonDir: '/repo/.git',
        agentWritable: [],
      }),
    );
    expect(access(p, '/repo/.git/objects/ab/cd')).toBe('read-write');
    expect(access(p, '/repo/.git/refs/heads/ralph/w1')).toBe('read-write');
    expect(access(p, '/repo/.git/worktrees/w1/index')).toBe('read-write');
    expect(access(p, '/repo/.git/worktrees/w1/HEAD')).toBe('read-write');
    for (const c of [
      'hooks/post-checkout',
      'config',
      'info/exclude',
      'worktrees/w2/HEAD',
      'worktrees/w1/commondir',
      'worktrees/w1/gitdir',
    ])
      expect(access(p, `/repo/.git/${c}`), c).toBe('read-only');
    expect(access(p, `${wt}/.git`)).toBe('read-only');
    expect(access(p, '/repo/src/main.ts')).toBe('read-only');
  });

  it("shows a worktree's main working tree read-only, also under the private /tmp, but never the home it holds", () => {
    const worker = (main: string, home = HOME) =>
      sandboxPolicy(
        sandboxInput(`${main}/.ralph/worktrees/w1`, home, {
          gitDir: `${main}/.git/worktrees/w1`,
          gitCommonDir: `${main}/.git`,
          agentWritable: [],
        }),
      );
    for (const main of ['/repo', '/tmp/repo', `${HOME}/repo`]) {
      const p = worker(main);
      for (const f of ['src/main.ts', 'ralph.yml', '.ralph/worktrees/w2/src/a.ts'])
        expect(accessOf(p, `${main}/${f}`), `${main}/${f}`).toMatchObject({
          access: 'read-only',
          rule: { reason: 'the main working tree (and its other worktrees)' },
        });
      expect(access(p, `${main}/.ralph/worktrees/w1/src/a.ts`)).toBe('read-write');
      expect(access(p, `${main}/.git/objects/ab`)).toBe('read-write');
    }
    // A repository at the home's root: the home stays hidden, its main tree with it.
    const atHome = worker(HOME);
    expect(access(atHome, `${HOME}/.ssh/id_rsa`)).toBe('hidden');
    expect(access(atHome, `${HOME}/src/main.ts`)).toBe('hidden');
  });

  it('expands ~ in the allow lists, and takes the network setting', () => {
    const p = sandboxPolicy(
      sandboxInput(WS, HOME, {
        settings: {
          mode: 'on',
          allowRead: ['~/.cargo'],
          allowWrite: ['~/.cache/pip', '/opt/cache'],
          network: 'off',
        },
      }),
    );
    expect(accessOf(p, `${HOME}/.cargo/bin/cargo`)).toMatchObject({
      access: 'read-only',
      rule: { reason: 'sandbox.allow_read' },
    });
    expect(access(p, `${HOME}/.cache/pip/x`)).toBe('read-write');
    expect(access(p, '/opt/cache/y')).toBe('read-write');
    expect(p.network).toBe('off');
  });

  it('refuses an allow-list entry that would show a credential store, naming it', () => {
    for (const [entry, shows] of [
      ['~', '~/.ssh'],
      ['~/.config', '~/.config/gh'],
      ['~/.ssh/config', '~/.ssh'],
      ['~/.docker', '~/.docker/config.json'],
    ] as const) {
      const run = () =>
        sandboxPolicy(
          sandboxInput(WS, HOME, {
            settings: { mode: 'on', allowRead: [entry], allowWrite: [], network: 'on' },
          }),
        );
      expect(run).toThrow(ConfigError);
      expect(run).toThrow(`${WS}/ralph.yml: sandbox.allow_read[0]: "${entry}" would show ${shows}`);
      expect(run).toThrow('sandbox: off');
    }
  });

  it('refuses a workspace that is the home directory, and a HOME of /', () => {
    expect(() => sandboxPolicy(sandboxInput(HOME, HOME))).toThrow(
      /the workspace \/home\/dev would show ~\/\.ssh/,
    );
    expect(() => sandboxPolicy(sandboxInput(WS, '/'))).toThrow(RalphError);
  });

  it('refuses a writable entry below a file Ralph guards, and agent files outside .ralph/', () => {
    const allowWrite = (path: string) =>
      sandboxInput(WS, HOME, { settings: { mode: 'on', allowRead: [], allowWrite: [path], network: 'on' } });
    expect(() => sandboxPolicy(allowWrite(`${WS}/.git/hooks/pre-commit`))).toThrow(
      /allow_write\[0\].*git control file/,
    );
    expect(() => sandboxPolicy(allowWrite(`${WS}/.ralph/state.json`))).toThrow(/Ralph's state/);
    // Naming the guarded path itself changes nothing: the guard comes later and wins.
    expect(access(sandboxPolicy(allowWrite(`${WS}/.ralph`)), `${WS}/.ralph/state.json`)).toBe('read-only');
    expect(() => sandboxPolicy(sandboxInput(WS, HOME, { agentWritable: [`${WS}/.ralph`] }))).toThrow(
      /agent file/,
    );
    expect(() => sandboxPolicy(sandboxInput(WS, HOME, { agentWritable: [`${WS}/src`] }))).toThrow(
      /agent file/,
    );
    // Outside the workspace (doctor --probe's events file in a temp dir) an agent file opens nothing of the work.
    const probe = sandboxPolicy(
      sandboxInput(WS, HOME, { agentWritable: ['/tmp/ralph-probe-1/events.jsonl'] }),
    );
    expect(access(probe, '/tmp/ralph-probe-1/events.jsonl')).toBe('read-write');
    // gates.protect naming .ralph/ itself: the agent's files would open it, so it is refused (found by the property below).
    expect(() =>
      sandboxPolicy(
        sandboxInput(WS, HOME, { protectedPaths: [`${WS}/.ralph`], agentWritable: [`${WS}/.ralph/agent`] }),
      ),
    ).toThrow(/protected/);
  });

  it('describes each rule with ~ for home, then the network and the fresh system mounts', () => {
    const lines = describePolicy(policy);
    expect(lines[0]).toBe('read-only  /  system, read-only');
    expect(lines).toContain('hidden     ~  your home directory (hidden)');
    expect(lines).toContain('read-write ~/.claude  agent CLI config (if present)');
    expect(lines).toContain(`read-only  ${WS}/.git/hooks  git control file`);
    expect(lines.at(-2)).toMatch(/^network {4}the host's/);
    expect(lines).toHaveLength(policy.rules.length + 2);
  });
});

/** Paths below a root, as a fast-check arbitrary. */
const segment = fc.constantFrom(
  'a',
  'src',
  '.git',
  'hooks',
  'config',
  'info',
  '.ralph',
  'agent',
  '.ssh',
  'x.txt',
  '..',
);
const below = (root: string) => fc.array(segment, { maxLength: 4 }).map((s) => [root, ...s].join('/'));
const abs = (p: string) => posix.normalize(p.startsWith('~') ? `${HOME}${p.slice(1)}` : p);
const under = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);

describe('sandboxPolicy, for any input', () => {
  const anyPath = fc.oneof(below(WS), below('~'), below('/opt'), fc.constant('~'));
  const input = fc.record({
    protectedPaths: fc.array(below(WS), { maxLength: 3 }),
    configFiles: fc.array(fc.oneof(below(WS), below(`${HOME}/.config/ralph`)), {
      minLength: 1,
      maxLength: 2,
    }),
    backendHome: fc.array(below(`${HOME}/.claude`), { maxLength: 2 }),
    agentWritable: fc.array(
      fc
        .constantFrom('agent', 'agent/tasks.jsonl', 'events-1.jsonl', 'control')
        .map((f) => `${WS}/.ralph/${f}`),
      { maxLength: 3 },
    ),
    allowRead: fc.array(anyPath, { maxLength: 2 }),
    allowWrite: fc.array(anyPath, { maxLength: 2 }),
    worktree: fc.boolean(),
  });
  const probe = fc.oneof(below(WS), below(HOME), below('/repo/.git')).map(abs);

  it('never makes a guarded path writable or a secret visible, and keeps the rest of the work writable', () => {
    let built = 0;
    fc.assert(
      fc.property(input, probe, (i, path) => {
        const given = sandboxInput(WS, HOME, {
          protectedPaths: i.protectedPaths,
          configFiles: i.configFiles,
          backendHome: i.backendHome,
          agentWritable: i.agentWritable,
          settings: { mode: 'on', allowRead: i.allowRead, allowWrite: i.allowWrite, network: 'on' },
          ...(i.worktree ? { gitDir: '/repo/.git/worktrees/w', gitCommonDir: '/repo/.git' } : {}),
        });
        let policy: SandboxPolicy;
        try {
          policy = sandboxPolicy(given);
        } catch (e) {
          expect(e).toBeInstanceOf(RalphError);
          return;
        }
        built++;
        const gitDirs = i.worktree ? ['/repo/.git', '/repo/.git/worktrees/w'] : [`${WS}/.git`];
        const ralphDir = `${WS}/.ralph`;
        const files = [...given.protectedPaths, ...given.configFiles, ...given.promptFiles].map(abs);
        const guarded =
          gitDirs.some((g) => ['hooks', 'config', 'info'].some((c) => under(path, `${g}/${c}`))) ||
          (under(path, ralphDir) &&
            !given.agentWritable.map(abs).some((w) => w !== ralphDir && under(path, w))) ||
          files.some((f) => under(path, f));
        const a = access(policy, path);
        if (guarded) expect([path, a]).not.toEqual([path, 'read-write']);
        for (const rel of SECRET_HOME_PATHS) expect(access(policy, `${HOME}/${rel}/k`)).toBe('hidden');
        if (under(path, WS) && !under(path, ralphDir) && !under(path, `${WS}/.git`) && !guarded)
          expect([path, a]).toEqual([path, 'read-write']);
      }),
      { numRuns: 500 },
    );
    expect(built).toBeGreaterThan(80);
  });
});

describe('sandboxPolicy: skills.dirs', () => {
  it('opens a skills directory under the hidden home read-only; one in the workspace stays as the workspace is', () => {
    const policy = sandboxPolicy(
      sandboxInput(WS, HOME, {
        skillDirs: [`${HOME}/shared/skills`, `${WS}/.claude/skills`, `${WS}/.ralph/skills`],
      }),
    );
    expect(access(policy, `${HOME}/shared/skills/tdd/SKILL.md`)).toBe('read-only');
    expect(reason(policy, `${HOME}/shared/skills/tdd/SKILL.md`)).toBe('skills.dirs');
    expect(access(policy, `${HOME}/shared/other.txt`)).toBe('hidden');
    expect(access(policy, `${WS}/.claude/skills/tdd/SKILL.md`)).toBe('read-write');
    expect(access(policy, `${WS}/.ralph/skills/a.md`)).toBe('read-only');
  });

  it('refuses a skills directory that would show a credential store', () => {
    expect(() => sandboxPolicy(sandboxInput(WS, HOME, { skillDirs: [HOME] }))).toThrow(
      `sandbox: the skills.dirs ${HOME} would show ~/.ssh to the agent`,
    );
  });
});
