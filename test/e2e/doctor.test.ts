import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, pidAlive, runRalph } from '../helpers/workspace.ts';

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

/** A bin directory holding only git (which git.commit needs), no agent CLI. */
function gitOnlyBin(): string {
  const bin = makeWorkspace();
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
  return bin;
}

/** No agent CLI on PATH: the doctor's table does not depend on (or run) what this machine has installed. */
const noAgentClis = (): NodeJS.ProcessEnv => ({ PATH: gitOnlyBin(), RALPH_AGENT: '' });

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
  // A clean tree: git.commit implies require_clean, which the doctor checks like `ralph run` does.
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'init');
  return dir;
}

describe('ralph doctor', () => {
  it('lists every check, the node version, workspace, config and backend, and exits 0 when healthy', async () => {
    const dir = gitWorkspace();
    const r = await runRalph(['doctor'], dir, noAgentClis());
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
    const full = await runRalph(['doctor'], dir, { ...noAgentClis(), RALPH_HEALTH_DISK_FREE_BYTES: '0' });
    expect(full.code).toBe(1);
    expect(full.stdout).toMatch(
      /^✗ disk +disk full: 0 bytes free in .*; free some space, then run ralph again$/m,
    );
    expect(full.stdout).toContain('1 fatal problem');
    const low = await runRalph(['doctor'], dir, {
      ...noAgentClis(),
      RALPH_HEALTH_DISK_FREE_BYTES: String(100 * 1024 * 1024),
    });
    expect(low.code).toBe(0);
    expect(low.stdout).toMatch(/^! disk +low disk space: 100 MB free/m);
    expect(low.stdout).toContain('ready to run (1 warning)');
  });

  it('exits 1 when specs/ is gone or holds a broken link (failure mode 8), and outside a git repository', async () => {
    const dir = gitWorkspace();
    symlinkSync(join(dir, 'deleted.md'), join(dir, 'specs', 'gone.md'));
    const broken = await runRalph(['doctor'], dir, noAgentClis());
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /^✗ specs .*specs\/gone\.md is a dangling symlink \(ENOENT\).*restore specs\//m,
    );
    rmSync(join(dir, 'specs'), { recursive: true });
    const missing = await runRalph(['doctor'], dir, noAgentClis());
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^✗ specs .*is missing \(ENOENT\)/m);
    rmSync(join(dir, '.git'), { recursive: true });
    const noGit = await runRalph(['doctor', '--json'], dir, noAgentClis());
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
    const r = await runRalph(['doctor', '--json'], dir, { PATH: emptyBin, RALPH_AGENT: '' });
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
    const r = await runRalph(['doctor'], noConfig, noAgentClis());
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('config     (no ralph.yml; defaults)');
    expect(r.stdout).toMatch(/^✗ backend +cli\.backend is auto but none of/m);
    const bad = makeWorkspace({ 'ralph.yml': 'health:\n  min_free_disk: 5\n' });
    const r2 = await runRalph(['doctor'], bad, noAgentClis());
    expect(r2.code).toBe(1);
    expect(r2.stdout).toMatch(/^✗ config +.*ralph\.yml:2:3/m);
    expect(r2.stdout).toMatch(/^✓ disk /m);
  });
});

const SECRET = 'sk-ant-api03-DOCTOR-E2E-SECRET-0123456789abcdef';
const isRoot = process.getuid?.() === 0;

/**
 * A PATH with fake `claude` and `codex` only, a HOME with a codex login, and the credentials a
 * developer's shell may hold blanked out, so the backends table is the same on every machine.
 */
function agentEnv(): NodeJS.ProcessEnv {
  const bin = makeWorkspace();
  symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
  for (const [name, version] of [
    ['claude', '2.1.329 (Claude Code)'],
    ['codex', 'codex-cli 0.169.0'],
  ]) {
    writeFileSync(join(bin, name!), `#!/bin/sh\necho "${version}"\n`);
    chmodSync(join(bin, name!), 0o755);
  }
  const home = makeWorkspace();
  mkdirSync(join(home, '.codex'));
  writeFileSync(join(home, '.codex', 'auth.json'), `{"OPENAI_API_KEY":"${SECRET}"}`);
  const blank = [
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'CLAUDE_CODE_USE_BEDROCK',
    'CLAUDE_CODE_USE_VERTEX',
    'CLAUDE_CONFIG_DIR',
    'CODEX_HOME',
    'OPENAI_API_KEY',
    'CODEX_API_KEY',
    'RALPH_AGENT',
    'XDG_DATA_HOME',
    'XDG_CONFIG_HOME',
  ];
  return {
    PATH: bin,
    HOME: home,
    ANTHROPIC_API_KEY: SECRET,
    ...Object.fromEntries(blank.map((v) => [v, ''])),
  };
}

describe('ralph doctor: backends', () => {
  it('shows every known agent CLI: installed, version, auth, support, configured and auto — never a key', async () => {
    const dir = gitWorkspace();
    const r = await runRalph(['doctor'], dir, agentEnv());
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
    for (const name of ['opencode', 'copilot', 'cline', 'amp', 'qwen'])
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
    const r = await runRalph(['doctor'], dir, env);
    expect(r.stdout).toMatch(/^ {2}✓ codex .*← configured$/m);
    const json = await runRalph(['doctor', '--json'], dir, env);
    expect(json.stdout).not.toContain(SECRET);
    const report = JSON.parse(json.stdout);
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
      'amp',
    ]);
    expect(report.backends[1]).toMatchObject({
      name: 'codex',
      executable: 'codex',
      installed: true,
      path: join(env.PATH!, 'codex'),
      version: 'codex-cli 0.169.0',
      auth: 'configured',
      authDetail: '~/.codex/auth.json',
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
    const auto = await runRalph(['doctor'], dir, env);
    expect(auto.stdout).toMatch(
      new RegExp(`^  backend +claude → claude \\(found: ${join(env.PATH!, 'claude')}\\)$`, 'm'),
    );
    expect(auto.stdout).toMatch(/^✓ agent +claude → /m);
    expect(auto.stdout).not.toMatch(/^✗ backend/m);
    expect(auto.stdout).toMatch(/^ {2}✓ claude .*← configured {2}← auto would pick$/m);
    const picked = await runRalph(['doctor'], dir, { ...env, RALPH_AGENT: 'codex' });
    expect(picked.stdout).toMatch(/^ {2}backend +codex → codex \(found: /m);
    expect(picked.stdout).toMatch(/^ {2}✓ codex .*← configured$/m);
    expect(picked.stdout).toMatch(/^ {2}✓ claude .*← auto would pick$/m);
  });
});

/** A git workspace whose fake agent plays `steps` (YAML actions) for the probe. */
function probeWorkspace(steps: string[]): string {
  const dir = gitWorkspace();
  writeFileSync(
    join(dir, 'fake-agent.yml'),
    `turns:\n  - do:\n${steps.map((s) => `      - ${s}\n`).join('')}`,
  );
  const id = ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid'];
  execFileSync('git', [...id, 'commit', '-qam', 'the probe agent'], { cwd: dir });
  return dir;
}

describe('ralph doctor --probe', () => {
  it('runs the configured backend once and prints ✓ with its answer (exit 0)', async () => {
    const dir = probeWorkspace(['print: OK']);
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ probe +fake answered: OK \(no token usage reported, (\d+ms|\d+s)\)$/m); // a slow machine: "1s"
    expect(r.stdout).toContain('ready to run');
  });

  it('shows the tokens and cost of a stream-json answer, in text and JSON', async () => {
    const dir = probeWorkspace([
      'assistant: OK',
      '{ result: { text: OK, input_tokens: 1200, output_tokens: 3, cost_usd: 0.0042 } }',
    ]);
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^✓ probe +fake answered: OK \(tokens 1,200 in \/ 3 out, \$0\.0042, (\d+ms|\d+s)\)$/m,
    ); // a slow machine: "1s"
    const json = await runRalph(['doctor', '--probe', '--json'], dir, agentEnv());
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).probe).toMatchObject({
      backend: 'fake',
      command: process.execPath,
      ok: true,
      kind: 'success',
      message: 'OK',
      reset_at: null,
      tokens: { input: 1200, output: 3, total: 1203 },
      cost_usd: 0.0042,
    });
  });

  it('sweeps what the probed agent left running outside its process group', async () => {
    // The probe's PATH holds only fake CLIs: the tools go by their full paths.
    const which = (tool: string) =>
      execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    const [setsid, sleep] = [which('setsid'), which('sleep')];
    const dir = probeWorkspace([
      `run: "${setsid} /bin/sh -c 'echo $$ > escaped.pid; exec ${sleep} 300' >/dev/null 2>&1 &"`,
      `run: "while [ ! -s escaped.pid ]; do ${sleep} 0.05; done"`,
      'print: OK',
    ]);
    const env = agentEnv();
    // The scripted agent's `run` needs sh.
    const r = await runRalph(['doctor', '--probe'], dir, {
      ...env,
      PATH: `${env.PATH}:${dirname(which('sh'))}`,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const pid = Number(readFileSync(join(dir, 'escaped.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(pidAlive(pid)).toBe(false);
  });

  it('prints ✗ with the reason and exits 1 when the agent fails', async () => {
    const dir = probeWorkspace(['stderr: "agent crashed: boom"', 'exit: 1']);
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✗ probe +fake: agent error: agent crashed: boom$/m);
    expect(r.stdout).toContain('the probe failed: ralph run would fail its first iteration');
    const silent = probeWorkspace(['exit: 1']);
    const r2 = await runRalph(['doctor', '--probe', '--json'], silent, agentEnv());
    expect(r2.code).toBe(1);
    expect(JSON.parse(r2.stdout).probe).toMatchObject({ ok: false, kind: 'agent_error' });
  });

  it('classifies auth errors and rate limits (with the reset time) the way the loop does', async () => {
    const auth = probeWorkspace([
      '{ result: { text: "Invalid API key · Please run /login", is_error: true } }',
    ]);
    const a = await runRalph(['doctor', '--probe'], auth, agentEnv());
    expect(a.code).toBe(1);
    expect(a.stdout).toMatch(/^✗ probe +fake: auth error: Invalid API key · Please run \/login$/m);
    const limited = probeWorkspace(['{ rate_limit: { resets_in_seconds: 3600 } }']);
    const before = Date.now();
    const l = await runRalph(['doctor', '--probe', '--json'], limited, agentEnv());
    expect(l.code).toBe(1);
    const probe = JSON.parse(l.stdout).probe;
    expect(probe).toMatchObject({ ok: false, kind: 'rate_limit' });
    const reset = Date.parse(probe.reset_at);
    expect(reset).toBeGreaterThan(before + 3500_000);
    expect(reset).toBeLessThan(Date.now() + 3700_000);
    const text = await runRalph(['doctor', '--probe'], limited, agentEnv());
    expect(text.stdout).toMatch(/^✗ probe +fake: rate limit: .*\(resets \d{4}-\d\d-\d\dT[\d:.]+Z\)$/m);
  });

  it('redacts secrets the agent echoes, from the environment and from cli.env', async () => {
    const dir = probeWorkspace(['print: "OK {{env.ANTHROPIC_API_KEY}} {{env.MY_SERVICE_TOKEN}}"']);
    const yml = RALPH_YML.replace(
      'fake_script: fake-agent.yml\n',
      'fake_script: fake-agent.yml\n  env:\n    MY_SERVICE_TOKEN: tok-from-cli-env-0123456789\n',
    );
    writeFileSync(join(dir, 'ralph.yml'), yml);
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e.invalid', 'commit', '-qam', 'env'], {
      cwd: dir,
    });
    const r = await runRalph(['doctor', '--probe'], dir, agentEnv());
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('fake answered: OK [redacted] [redacted]');
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).not.toContain('tok-from-cli-env-0123456789');
    const json = await runRalph(['doctor', '--probe', '--json'], dir, agentEnv());
    expect(json.stdout).not.toContain(SECRET);
    expect(json.stdout).not.toContain('tok-from-cli-env-0123456789');
    expect(JSON.parse(json.stdout).probe.message).toBe('OK [redacted] [redacted]');
  });

  it('runs the agent under the caps a loop iteration has: the idle timeout, max_cost_usd, max_tokens', async () => {
    const capped = (steps: string[], eventLoop: string) => {
      const dir = probeWorkspace(steps);
      writeFileSync(
        join(dir, 'ralph.yml'),
        `${RALPH_YML}event_loop:\n${eventLoop}  kill_grace_seconds: 0.5\n`,
      );
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e.invalid', 'commit', '-qam', 'caps'], {
        cwd: dir,
      });
      return dir;
    };
    const silent = capped(['sleep: 600'], '  idle_timeout_seconds: 2\n');
    const idle = await runRalph(['doctor', '--probe'], silent, agentEnv());
    expect(idle.code).toBe(1);
    expect(idle.stdout).toMatch(
      /^✗ probe +fake: killed: no output for 2 s \(event_loop\.idle_timeout_seconds\)$/m,
    );
    const costly = capped(
      ['{ result: { text: thinking, cost_usd: 2.5, input_tokens: 10, output_tokens: 10 } }', 'hang: true'],
      '  max_cost_usd: 1\n',
    );
    const cost = await runRalph(['doctor', '--probe', '--json'], costly, agentEnv());
    expect(cost.code).toBe(1);
    expect(JSON.parse(cost.stdout).probe).toMatchObject({
      ok: false,
      kind: 'killed',
      message: 'the answer cost more than event_loop.max_cost_usd ($1)',
      cost_usd: 2.5,
    });
    const wordy = capped(
      ['{ assistant: reading, usage: { input_tokens: 4000, output_tokens: 500 } }', 'hang: true'],
      '  max_tokens: 1000\n',
    );
    const tokens = await runRalph(['doctor', '--probe'], wordy, agentEnv());
    expect(tokens.code).toBe(1);
    expect(tokens.stdout).toMatch(
      /^✗ probe +fake: killed: the answer used more than event_loop\.max_tokens \(1000\)$/m,
    );
  });

  it('fails with what to do when the backend cannot run at all', async () => {
    const noCommand = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n' });
    const r = await runRalph(['doctor', '--probe'], noCommand, agentEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^✗ probe +custom: cannot run: cli\.backend is "custom" but cli\.command is not set/m,
    );
    const missing = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n  command: no-such-agent-cli\n' });
    const m = await runRalph(['doctor', '--probe'], missing, agentEnv());
    expect(m.code).toBe(1);
    expect(m.stdout).toMatch(/^✗ probe +custom: cannot run: could not start no-such-agent-cli: .*ENOENT/m);
  });
});
