import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { installHint } from '../../../../src/backends/registry.ts';
import { configSchema, type RalphConfigInput } from '../../../../src/config/schema.ts';
import { healthFatal, runHealthChecks } from '../../../../src/engine/readiness/health.ts';
import {
  checkAgentAvailable,
  checkDiskSpace,
  checkGitRepo,
  type HealthResult,
  isInsideGitRepo,
  statfsFreeBytes,
} from '../../../../src/engine/readiness/health-checks.ts';
import { checkSpecsReadable } from '../../../../src/engine/readiness/specs-check.ts';
import { findExecutable } from '../../../../src/process/find-executable.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

const MB = 1024 * 1024;
const GB = 1024 * MB;

describe('checkDiskSpace', () => {
  it('is ok at or above the minimum, warns below it, and is fatal below 1 MB', () => {
    expect(checkDiskSpace('/w', GB, () => 5 * GB)).toEqual({
      check: 'disk',
      level: 'ok',
      message: '5120 MB free in /w',
    });
    expect(checkDiskSpace('/w', GB, () => GB).level).toBe('ok');
    const low = checkDiskSpace('/w', GB, () => GB - 1);
    expect(low.level).toBe('warn');
    expect(low.message).toBe('low disk space: 1023 MB free in /w, below health.min_free_disk_mb (1024 MB)');
    expect(checkDiskSpace('/w', GB, () => MB).level).toBe('warn');
    const nearlyFull = checkDiskSpace('/w', GB, () => MB - 1);
    expect(nearlyFull.level).toBe('fatal');
    expect(nearlyFull.message).toMatch(
      /^disk full: 1048575 bytes free in \/w; free some space, then run ralph again$/,
    );
    const full = checkDiskSpace('/w', GB, () => 0);
    expect(full).toMatchObject({
      level: 'fatal',
      message: expect.stringContaining('disk full: 0 bytes free in /w'),
    });
  });

  it('passes the path to the probe and only warns when the probe itself fails', () => {
    const seen: string[] = [];
    checkDiskSpace('/some/where', MB, (p) => {
      seen.push(p);
      return GB;
    });
    expect(seen).toEqual(['/some/where']);
    const failed = checkDiskSpace('/nope', GB, () => {
      throw Object.assign(new Error('x'), { code: 'ENOENT' });
    });
    expect(failed).toEqual({
      check: 'disk',
      level: 'warn',
      message: 'could not measure free disk space in /nope (ENOENT)',
    });
  });

  it('property: the level is a function of free space against 1 MB and the minimum', () => {
    fc.assert(
      fc.property(fc.nat({ max: 8 * GB }), fc.integer({ min: 1, max: 8 * GB }), (free, min) => {
        const { level } = checkDiskSpace('/w', min, () => free);
        const expected = free < MB ? 'fatal' : free < min ? 'warn' : 'ok';
        expect(level).toBe(expected);
      }),
    );
  });

  it('measures real free space with statfs by default', () => {
    expect(statfsFreeBytes(tmpdir())).toBeGreaterThan(0);
    expect(checkDiskSpace(tmpdir(), 1).level).not.toBe('fatal');
  });
});

describe('checkGitRepo', () => {
  it('uses the injected probe and names the fix when it is not a repository', () => {
    expect(checkGitRepo('/w', () => true).level).toBe('ok');
    expect(checkGitRepo('/w', () => false)).toEqual({
      check: 'git',
      level: 'fatal',
      message: 'not a git repository: /w (run git init, or set health.require_git: false)',
    });
  });

  it('finds .git as a directory or a file, in the root or a parent', () => {
    const repo = makeWorkspace({ 'sub/deep/x.txt': 'x' });
    expect(isInsideGitRepo(repo)).toBe(false);
    mkdirSync(join(repo, '.git'));
    expect(isInsideGitRepo(join(repo, 'sub', 'deep'))).toBe(true);
    const worktree = makeWorkspace({ '.git': 'gitdir: /elsewhere/.git/worktrees/w\n' });
    expect(isInsideGitRepo(worktree)).toBe(true);
    expect(checkGitRepo(worktree).level).toBe('ok');
  });
});

describe('checkSpecsReadable', () => {
  it('is ok for a directory of readable files, counting them through subdirectories', () => {
    const ws = makeWorkspace({
      'specs/a.md': 'a',
      'specs/b.md': 'b',
      'specs/api/c.md': 'c',
      'specs/empty.md': '',
    });
    const r = checkSpecsReadable(join(ws, 'specs'));
    expect(r).toEqual({ check: 'specs', level: 'ok', message: `${join(ws, 'specs')} readable (4 files)` });
  });

  it('accepts specs/ as a symlink to a directory, and symlinks to readable files inside', () => {
    const ws = makeWorkspace({ 'real/a.md': 'a', 'other.md': 'o' });
    symlinkSync(join(ws, 'real'), join(ws, 'specs'));
    symlinkSync(join(ws, 'other.md'), join(ws, 'real', 'linked.md'));
    expect(checkSpecsReadable(join(ws, 'specs')).level).toBe('ok');
  });

  const fatal = (r: HealthResult, path: string, code: string, what: string) => {
    expect(r.check).toBe('specs');
    expect(r.level).toBe('fatal');
    expect(r.message).toContain(`${path} ${what} (${code})`);
    expect(r.message).toContain('restore specs/');
  };

  it('is fatal when the directory is missing', () => {
    const ws = makeWorkspace();
    fatal(checkSpecsReadable(join(ws, 'specs')), join(ws, 'specs'), 'ENOENT', 'is missing');
  });

  it('is fatal when specs is a file instead of a directory', () => {
    const ws = makeWorkspace({ specs: 'not a dir' });
    fatal(checkSpecsReadable(join(ws, 'specs')), join(ws, 'specs'), 'ENOTDIR', 'is not a directory');
  });

  it('is fatal when specs is a dangling symlink', () => {
    const ws = makeWorkspace();
    symlinkSync(join(ws, 'gone'), join(ws, 'specs'));
    fatal(checkSpecsReadable(join(ws, 'specs')), join(ws, 'specs'), 'ENOENT', 'is a dangling symlink');
  });

  it('is fatal when a file inside cannot be read (an entry that is a broken symlink), naming that entry', () => {
    const ws = makeWorkspace({ 'specs/ok.md': 'ok' });
    symlinkSync(join(ws, 'deleted.md'), join(ws, 'specs', 'auth.md'));
    const r = checkSpecsReadable(join(ws, 'specs'));
    fatal(r, join(ws, 'specs', 'auth.md'), 'ENOENT', 'is a dangling symlink');
    expect(r.message).toContain(`in ${join(ws, 'specs')}`);
  });

  it('finds an unreadable entry in a subdirectory, and a symlink loop', () => {
    const ws = makeWorkspace({ 'specs/api/ok.md': 'ok' });
    symlinkSync(join(ws, 'nowhere'), join(ws, 'specs', 'api', 'broken.md'));
    fatal(
      checkSpecsReadable(join(ws, 'specs')),
      join(ws, 'specs', 'api', 'broken.md'),
      'ENOENT',
      'is a dangling symlink',
    );
    const ws2 = makeWorkspace({ 'specs/ok.md': 'ok' });
    symlinkSync('loop.md', join(ws2, 'specs', 'loop.md'));
    fatal(
      checkSpecsReadable(join(ws2, 'specs')),
      join(ws2, 'specs', 'loop.md'),
      'ELOOP',
      'is a symlink loop',
    );
  });
});

describe('checkAgentAvailable', () => {
  const bin = makeWorkspace();
  writeFileSync(join(bin, 'my-agent'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'my-agent'), 0o755);
  writeFileSync(join(bin, 'plain-file'), 'not a program\n');
  chmodSync(join(bin, 'plain-file'), 0o644);
  mkdirSync(join(bin, 'a-dir'));
  const empty = makeWorkspace();

  it('finds an executable on env.PATH', () => {
    const r = checkAgentAvailable('my-agent', { PATH: `${empty}:${bin}` });
    expect(r).toEqual({ check: 'agent', level: 'ok', message: `my-agent → ${join(bin, 'my-agent')}` });
  });

  it('is fatal for a file on PATH without the execute bit, or a directory of that name', () => {
    const r = checkAgentAvailable('plain-file', { PATH: bin });
    expect(r.level).toBe('fatal');
    expect(r.message).toBe(
      `agent binary not found: plain-file (${join(bin, 'plain-file')} is not executable) — install it (make sure it is on PATH) or set cli.command`,
    );
    expect(checkAgentAvailable('a-dir', { PATH: bin }).level).toBe('fatal');
  });

  it('is fatal when nothing on PATH matches, with the install command of well-known agents', () => {
    const r = checkAgentAvailable('claude', { PATH: empty });
    expect(r.message).toBe(
      'agent binary not found: claude (not on PATH) — install it (npm install -g @anthropic-ai/claude-code) or set cli.command',
    );
    expect(checkAgentAvailable('codex', { PATH: empty }).message).toContain('npm install -g @openai/codex');
    expect(checkAgentAvailable('gemini', { PATH: empty }).message).toContain(
      'npm install -g @google/gemini-cli',
    );
    expect(checkAgentAvailable('opencode', { PATH: empty }).message).toContain('npm install -g opencode-ai');
    expect(installHint('/opt/bin/claude')).toBe('npm install -g @anthropic-ai/claude-code');
    expect(installHint('whatever')).toBe('make sure it is on PATH');
  });

  it('checks a path directly (relative to the workspace), ignoring PATH', () => {
    expect(checkAgentAvailable(join(bin, 'my-agent'), { PATH: empty }).level).toBe('ok');
    expect(checkAgentAvailable('./my-agent', {}, bin).level).toBe('ok');
    const missing = checkAgentAvailable('./nope', { PATH: bin }, bin);
    expect(missing.level).toBe('fatal');
    expect(missing.message).toContain(`no such file: ${join(bin, 'nope')}`);
    expect(checkAgentAvailable('./plain-file', {}, bin).message).toContain('not executable');
    expect(findExecutable(process.execPath, undefined, '/')).toEqual({ found: true, path: process.execPath });
  });
});

describe('runHealthChecks', () => {
  const config = (input: RalphConfigInput) => configSchema.parse(input);
  const fakeWs = () => makeWorkspace({ 'fake-agent.yml': 'steps: []\n' });
  const fakeCli = { backend: 'fake', fake_script: 'fake-agent.yml' } as const;
  const plenty = { diskFree: () => 100 * GB };

  it('runs disk and agent for a plain config (node itself is the fake agent)', () => {
    const ws = fakeWs();
    const results = runHealthChecks({
      workspace: ws,
      config: config({ cli: fakeCli }),
      env: {},
      probes: plenty,
    });
    expect(results.map((r) => [r.check, r.level])).toEqual([
      ['disk', 'ok'],
      ['agent', 'ok'],
    ]);
    expect(healthFatal(results)).toBeUndefined();
  });

  it('adds git when git.commit is on (or health.require_git), and specs when health.specs_dir is set', () => {
    const ws = fakeWs();
    const isGitRepo = () => false;
    const withCommit = runHealthChecks({
      workspace: ws,
      config: config({ cli: fakeCli, git: { commit: true } }),
      env: {},
      probes: { ...plenty, isGitRepo },
    });
    expect(withCommit.map((r) => r.check)).toEqual(['disk', 'git', 'agent']);
    expect(healthFatal(withCommit)?.message).toContain('not a git repository');
    const optedOut = runHealthChecks({
      workspace: ws,
      config: config({
        cli: fakeCli,
        git: { commit: true },
        health: { require_git: false, specs_dir: 'specs' },
      }),
      env: {},
      probes: { ...plenty, isGitRepo },
    });
    expect(optedOut.map((r) => r.check)).toEqual(['disk', 'specs', 'agent']);
    expect(healthFatal(optedOut)?.message).toContain(`${join(ws, 'specs')} is missing (ENOENT)`);
  });

  it('reads the injected free space from RALPH_HEALTH_DISK_FREE_BYTES (failure drills)', () => {
    const ws = fakeWs();
    const run = (value: string) =>
      runHealthChecks({
        workspace: ws,
        config: config({ cli: fakeCli }),
        env: { RALPH_HEALTH_DISK_FREE_BYTES: value },
      });
    expect(healthFatal(run('0'))?.message).toContain('disk full: 0 bytes free');
    expect(run(String(512 * MB))[0]?.level).toBe('warn');
    expect(run('not-a-number')[0]?.level).not.toBe('fatal');
  });

  it('checks the custom command on the PATH the agent gets (cli.env wins) and skips a backend that does not resolve', () => {
    const ws = makeWorkspace();
    const custom = config({ cli: { backend: 'custom', command: 'no-such-agent-xyz' } });
    const results = runHealthChecks({ workspace: ws, config: custom, env: { PATH: ws }, probes: plenty });
    expect(healthFatal(results)?.message).toContain('agent binary not found: no-such-agent-xyz');
    writeFileSync(join(ws, 'no-such-agent-xyz'), '#!/bin/sh\n');
    chmodSync(join(ws, 'no-such-agent-xyz'), 0o755);
    const viaCliEnv = config({ cli: { backend: 'custom', command: 'no-such-agent-xyz', env: { PATH: ws } } });
    expect(
      healthFatal(runHealthChecks({ workspace: ws, config: viaCliEnv, env: { PATH: '' }, probes: plenty })),
    ).toBe(undefined);
    const auto = runHealthChecks({ workspace: ws, config: config({}), env: {}, probes: plenty });
    expect(auto.map((r) => r.check)).toEqual(['disk']);
  });

  it('runs nothing when health.enabled is false', () => {
    const ws = fakeWs();
    const off = config({ cli: fakeCli, health: { enabled: false }, git: { commit: true } });
    expect(
      runHealthChecks({ workspace: ws, config: off, env: { RALPH_HEALTH_DISK_FREE_BYTES: '0' } }),
    ).toEqual([]);
  });

  it('healthFatal returns the first fatal result', () => {
    const r = (check: string, level: HealthResult['level']): HealthResult => ({
      check,
      level,
      message: check,
    });
    expect(healthFatal([r('a', 'ok'), r('b', 'warn'), r('c', 'fatal'), r('d', 'fatal')])?.check).toBe('c');
    expect(healthFatal([r('a', 'warn')])).toBeUndefined();
  });
});
