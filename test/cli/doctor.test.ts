import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import {
  agentEnv,
  gitWorkspace,
  isRoot,
  noAgentClis,
  RALPH_YML,
  SECRET,
} from '../helpers/doctor-workspace.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// `ralph doctor --probe` runs an agent and sweeps what it leaves: test/e2e/doctor-probe.test.ts.
describe('ralph doctor', () => {
  it('lists every check, the node version, workspace, config and backend, and exits 0 when healthy', async () => {
    const dir = gitWorkspace();
    const r = await runCliInMemory(['doctor'], { cwd: dir, env: noAgentClis() });
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
    const full = await runCliInMemory(['doctor'], {
      cwd: dir,
      env: { ...noAgentClis(), RALPH_HEALTH_DISK_FREE_BYTES: '0' },
    });
    expect(full.code).toBe(1);
    expect(full.stdout).toMatch(
      /^✗ disk +disk full: 0 bytes free in .*; free some space, then run ralph again$/m,
    );
    expect(full.stdout).toContain('1 fatal problem');
    const low = await runCliInMemory(['doctor'], {
      cwd: dir,
      env: {
        ...noAgentClis(),
        RALPH_HEALTH_DISK_FREE_BYTES: String(100 * 1024 * 1024),
      },
    });
    expect(low.code).toBe(0);
    expect(low.stdout).toMatch(/^! disk +low disk space: 100 MB free/m);
    expect(low.stdout).toContain('ready to run (1 warning)');
  });

  it('exits 1 when specs/ is gone or holds a broken link (failure mode 8), and outside a git repository', async () => {
    const dir = gitWorkspace();
    symlinkSync(join(dir, 'deleted.md'), join(dir, 'specs', 'gone.md'));
    const broken = await runCliInMemory(['doctor'], { cwd: dir, env: noAgentClis() });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /^✗ specs .*specs\/gone\.md is a dangling symlink \(ENOENT\).*restore specs\//m,
    );
    rmSync(join(dir, 'specs'), { recursive: true });
    const missing = await runCliInMemory(['doctor'], { cwd: dir, env: noAgentClis() });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^✗ specs .*is missing \(ENOENT\)/m);
    rmSync(join(dir, '.git'), { recursive: true });
    const noGit = await runCliInMemory(['doctor', '--json'], { cwd: dir, env: noAgentClis() });
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
    const r = await runCliInMemory(['doctor', '--json'], {
      cwd: dir,
      env: { PATH: emptyBin, RALPH_AGENT: '' },
    });
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
    const r = await runCliInMemory(['doctor'], { cwd: noConfig, env: noAgentClis() });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('config     (no ralph.yml; defaults)');
    expect(r.stdout).toMatch(/^✗ backend +cli\.backend is auto but none of/m);
    const bad = makeWorkspace({ 'ralph.yml': 'health:\n  min_free_disk: 5\n' });
    const r2 = await runCliInMemory(['doctor'], { cwd: bad, env: noAgentClis() });
    expect(r2.code).toBe(1);
    expect(r2.stdout).toMatch(/^✗ config +.*ralph\.yml:2:3/m);
    expect(r2.stdout).toMatch(/^✓ disk /m);
  });
});

describe('ralph doctor: backends', () => {
  it('shows every known agent CLI: installed, version, auth, support, configured and auto — never a key', async () => {
    const dir = gitWorkspace();
    const r = await runCliInMemory(['doctor'], { cwd: dir, env: agentEnv() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^backends$/m);
    expect(r.stdout).toMatch(
      /^ {2}✓ claude +2\.1\.329 \(Claude Code\) +auth configured: ANTHROPIC_API_KEY set +← auto would pick$/m,
    );
    expect(r.stdout).toMatch(/^ {2}✓ codex +codex-cli 0\.169\.0 +auth configured: ~\/\.codex\/auth\.json$/m);
    expect(r.stdout).toMatch(
      /^ {2}✗ gemini +not installed +auth .*install: npm install -g @google\/gemini-cli/m,
    );
    expect(r.stdout).toMatch(/^ {2}✗ cursor +not installed .*install: curl https:\/\/cursor\.com\/install/m);
    for (const name of ['opencode', 'copilot', 'cline', 'pi', 'amp', 'qwen'])
      expect(r.stdout).toMatch(new RegExp(`^  ✗ ${name} +not installed `, 'm'));
    expect(r.stdout).not.toContain(SECRET);
    const root =
      'root       running as root: Ralph sets IS_SANDBOX=1 for Claude Code, which refuses --dangerously-skip-permissions as root';
    if (isRoot) expect(r.stdout).toContain(root);
    else expect(r.stdout).not.toContain('IS_SANDBOX');
  });

  it('marks the configured backend, and says which ones this ralph cannot run yet, in text and JSON', async () => {
    const dir = gitWorkspace(RALPH_YML.replace('backend: fake', 'backend: codex'));
    const env = agentEnv();
    const r = await runCliInMemory(['doctor'], { cwd: dir, env: env });
    expect(r.stdout).toMatch(/^ {2}✓ codex .*← configured$/m);
    const json = await runCliInMemory(['doctor', '--json'], { cwd: dir, env: env });
    expect(json.stdout).not.toContain(SECRET);
    const report = JSON.parse(json.stdout);
    // One naming for scripts: every key snake_case (issue 36: `authDetail` sat beside `auto_pick`).
    const keys: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object')
        for (const [k, inner] of Object.entries(v)) {
          keys.push(k);
          walk(inner);
        }
    };
    walk(report);
    expect(keys.filter((k) => /[A-Z]/.test(k))).toEqual([]);
    expect(report.auto_backend).toBe('claude');
    expect(report.running_as_root).toBe(isRoot);
    expect(report.notes).toHaveLength(isRoot ? 1 : 0);
    expect(report.probe).toBeNull();
    expect(report.backends.map((b: any) => b.name)).toEqual([
      'claude',
      'codex',
      'gemini',
      'opencode',
      'qwen',
      'copilot',
      'cline',
      'cursor',
      'pi',
      'amp',
    ]);
    expect(report.backends[1]).toMatchObject({
      name: 'codex',
      executable: 'codex',
      installed: true,
      path: join(env.PATH!, 'codex'),
      version: 'codex-cli 0.169.0',
      auth: 'configured',
      auth_detail: '~/.codex/auth.json',
      implemented: true,
      configured: true,
      auto_pick: false,
    });
    for (const b of report.backends) {
      const line = r.stdout.split('\n').find((l) => l.startsWith(`  ${b.installed ? '✓' : '✗'} ${b.name} `));
      expect(line, b.name).toBeDefined();
      expect(line?.includes('(not supported by this ralph yet)'), b.name).toBe(!b.implemented);
    }
  });
});

describe('ralph doctor: the agent ralph run would use', () => {
  it('resolves cli.backend: auto and RALPH_AGENT the way ralph run does', async () => {
    const dir = makeWorkspace();
    const env = agentEnv();
    const auto = await runCliInMemory(['doctor'], { cwd: dir, env: env });
    expect(auto.stdout).toMatch(
      new RegExp(`^  backend +claude → claude \\(found: ${join(env.PATH!, 'claude')}\\)$`, 'm'),
    );
    expect(auto.stdout).toMatch(/^✓ agent +claude → /m);
    expect(auto.stdout).not.toMatch(/^✗ backend/m);
    expect(auto.stdout).toMatch(/^ {2}✓ claude .*← configured {2}← auto would pick$/m);
    const picked = await runCliInMemory(['doctor'], { cwd: dir, env: { ...env, RALPH_AGENT: 'codex' } });
    expect(picked.stdout).toMatch(/^ {2}backend +codex → codex \(found: /m);
    expect(picked.stdout).toMatch(/^ {2}✓ codex .*← configured$/m);
    expect(picked.stdout).toMatch(/^ {2}✓ claude .*← auto would pick$/m);
  });
});
