import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupWorkspaces, makeWorkspace, runRalph } from '../helpers/workspace.ts';

afterAll(cleanupWorkspaces);

const RALPH_YML = [
  'cli:',
  '  backend: fake',
  '  fake_script: fake-agent.yml',
  'git:',
  '  commit: true',
  'health:',
  '  specs_dir: specs',
  '',
].join('\n');

/** A git repository with specs/ and a fake-backend ralph.yml: every health check applies. */
function gitWorkspace(yml = RALPH_YML): string {
  const dir = makeWorkspace({
    'ralph.yml': yml,
    'fake-agent.yml': 'steps: []\n',
    'PROMPT.md': 'x\n',
    'specs/auth.md': '# Auth\n',
    'specs/api/users.md': '# Users\n',
  });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

describe('ralph doctor', () => {
  it('lists every check, the node version, workspace, config and backend, and exits 0 when healthy', async () => {
    const dir = gitWorkspace();
    const r = await runRalph(['doctor'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`node       ${process.version}`);
    expect(r.stdout).toContain(`workspace  ${dir}`);
    expect(r.stdout).toContain('config     ralph.yml');
    expect(r.stdout).toMatch(
      new RegExp(`backend +fake → ${process.execPath.replace(/[/.]/g, '\\$&')} \\(found`),
    );
    for (const check of ['disk', 'git', 'specs', 'agent'])
      expect(r.stdout).toMatch(new RegExp(`^✓ ${check} `, 'm'));
    expect(r.stdout).toContain('readable (2 files)');
    expect(r.stdout).toContain('ready to run');
  });

  it('exits 1 naming disk full when RALPH_HEALTH_DISK_FREE_BYTES=0 (failure mode 7), and warns when low', async () => {
    const dir = gitWorkspace();
    const full = await runRalph(['doctor'], dir, { RALPH_HEALTH_DISK_FREE_BYTES: '0' });
    expect(full.code).toBe(1);
    expect(full.stdout).toMatch(
      /^✗ disk +disk full: 0 bytes free in .*; free some space, then run ralph again$/m,
    );
    expect(full.stdout).toContain('1 fatal problem');
    const low = await runRalph(['doctor'], dir, { RALPH_HEALTH_DISK_FREE_BYTES: String(100 * 1024 * 1024) });
    expect(low.code).toBe(0);
    expect(low.stdout).toMatch(/^! disk +low disk space: 100 MB free/m);
    expect(low.stdout).toContain('ready to run (1 warning)');
  });

  it('exits 1 when specs/ is gone or holds a broken link (failure mode 8), and outside a git repository', async () => {
    const dir = gitWorkspace();
    symlinkSync(join(dir, 'deleted.md'), join(dir, 'specs', 'gone.md'));
    const broken = await runRalph(['doctor'], dir);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /^✗ specs .*specs\/gone\.md is a dangling symlink \(ENOENT\).*restore specs\//m,
    );
    rmSync(join(dir, 'specs'), { recursive: true });
    const missing = await runRalph(['doctor'], dir);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^✗ specs .*is missing \(ENOENT\)/m);
    rmSync(join(dir, '.git'), { recursive: true });
    const noGit = await runRalph(['doctor', '--json'], dir);
    expect(noGit.code).toBe(1);
    const report = JSON.parse(noGit.stdout);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c: any) => c.check === 'git')).toMatchObject({
      level: 'fatal',
      message: expect.stringContaining('not a git repository'),
    });
  });

  it('reports a missing agent binary with its install hint, in text and JSON', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n  command: codex\n' });
    const emptyBin = makeWorkspace();
    const r = await runRalph(['doctor', '--json'], dir, { PATH: emptyBin });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      ok: false,
      node: process.version,
      workspace: dir,
      config: join(dir, 'ralph.yml'),
      backend: { name: 'custom', command: 'codex', available: false },
    });
    expect(report.checks.find((c: any) => c.check === 'agent').message).toBe(
      'agent binary not found: codex (not on PATH) — install it (npm install -g @openai/codex) or set cli.command',
    );
  });

  it('reports an unusable backend and a broken config as fatal findings', async () => {
    const noConfig = makeWorkspace();
    const r = await runRalph(['doctor'], noConfig);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('config     (no ralph.yml; defaults)');
    expect(r.stdout).toMatch(/^✗ backend +cli\.backend is auto but none of/m);
    const bad = makeWorkspace({ 'ralph.yml': 'health:\n  min_free_disk: 5\n' });
    const r2 = await runRalph(['doctor'], bad);
    expect(r2.code).toBe(1);
    expect(r2.stdout).toMatch(/^✗ config +.*ralph\.yml:2:3/m);
    expect(r2.stdout).toMatch(/^✓ disk /m);
  });
});
