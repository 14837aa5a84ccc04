import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownBackends, resolveBackend } from '../../../../src/backends/registry.ts';
import { AGENT_CLI_NAMES, type AgentCliName, configSchema } from '../../../../src/config/schema.ts';
import { inspectBackend, inspectBackends } from '../../../../src/engine/readiness/backend-info.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

const SECRET = 'sk-ant-api03-THIS-IS-A-TEST-KEY-0123456789abcdef';
const keychainOrMissing = process.platform === 'darwin' ? 'unknown' : 'missing';

/** A PATH directory holding fake agent CLIs: name → shell body. */
function fakeBin(scripts: Record<string, string>): string {
  const dir = makeWorkspace();
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** An environment with nothing but PATH and a fresh HOME (no credentials anywhere). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): { env: NodeJS.ProcessEnv; home: string } {
  const home = makeWorkspace();
  return { env: { PATH: fakeBin({}), HOME: home, ...extra }, home };
}

describe('knownBackends', () => {
  it('lists the ten agent CLIs with their executables and install hints', () => {
    const table = knownBackends();
    expect(table.map((b) => b.name)).toEqual([...AGENT_CLI_NAMES]);
    expect(Object.fromEntries(table.map((b) => [b.name, b.executable]))).toEqual({
      claude: 'claude',
      codex: 'codex',
      gemini: 'gemini',
      opencode: 'opencode',
      copilot: 'copilot',
      cline: 'cline',
      amp: 'amp',
      cursor: 'cursor-agent',
      qwen: 'qwen',
      pi: 'pi',
    });
    const install = Object.fromEntries(table.map((b) => [b.name, b.install]));
    expect(install.claude).toBe('npm install -g @anthropic-ai/claude-code');
    expect(install.codex).toBe('npm install -g @openai/codex');
    expect(install.gemini).toBe('npm install -g @google/gemini-cli');
    expect(install.opencode).toBe('npm install -g opencode-ai');
    expect(install.copilot).toBe('npm install -g @github/copilot');
    expect(install.cline).toBe('npm install -g cline');
    expect(install.amp).toBe('npm install -g @ampcode/cli');
    expect(install.cursor).toContain('cursor.com/install');
    expect(install.qwen).toBe('npm install -g @qwen-code/qwen-code');
    expect(install.pi).toBe('npm install -g @mariozechner/pi-coding-agent');
  });
});

describe('inspectBackend', () => {
  it('finds an installed CLI on PATH and reads the first line of its --version', async () => {
    const bin = fakeBin({ claude: 'echo "2.1.329 (Claude Code)"; echo "second line"' });
    const { env } = cleanEnv({ PATH: bin });
    const info = await inspectBackend('claude', env, bin);
    expect(info).toMatchObject({
      name: 'claude',
      executable: 'claude',
      installed: true,
      path: join(bin, 'claude'),
      version: '2.1.329 (Claude Code)',
      auth: keychainOrMissing,
      implemented: true,
    });
  });

  it('runs --version with the given environment', async () => {
    const bin = fakeBin({ codex: 'echo "codex-cli $FAKE_VERSION"' });
    const { env } = cleanEnv({ PATH: bin, FAKE_VERSION: '0.169.0' });
    expect((await inspectBackend('codex', env, bin)).version).toBe('codex-cli 0.169.0');
  });

  it('reports a missing CLI, and leaves the version undefined when --version fails or prints nothing', async () => {
    const { env } = cleanEnv();
    const missing = await inspectBackend('gemini', env, env.HOME!);
    expect(missing).toMatchObject({ installed: false, path: undefined, version: undefined });
    const bin = fakeBin({ gemini: 'echo "boom" >&2; exit 3', opencode: 'exit 0' });
    expect(await inspectBackend('gemini', { ...env, PATH: bin }, bin)).toMatchObject({
      installed: true,
      version: undefined,
    });
    expect((await inspectBackend('opencode', { ...env, PATH: bin }, bin)).version).toBeUndefined();
  });

  it('looks for cursor-agent, not cursor', async () => {
    const bin = fakeBin({ cursor: 'echo wrong', 'cursor-agent': 'echo 2026.01.01' });
    const info = await inspectBackend('cursor', cleanEnv({ PATH: bin }).env, bin);
    expect(info).toMatchObject({ installed: true, path: join(bin, 'cursor-agent'), version: '2026.01.01' });
  });

  it('says which backends this ralph can run', async () => {
    const { env, home } = cleanEnv();
    const config = configSchema.parse({});
    for (const name of AGENT_CLI_NAMES) {
      let runs = true;
      try {
        resolveBackend(name, config);
      } catch {
        runs = false;
      }
      expect((await inspectBackend(name, env, home)).implemented).toBe(runs);
    }
    expect((await inspectBackend('claude', env, home)).implemented).toBe(true);
    expect((await inspectBackend('codex', env, home)).implemented).toBe(true);
  });
});

describe('inspectBackend auth (presence only, never the value)', () => {
  const envCases: [AgentCliName, string][] = [
    ['claude', 'ANTHROPIC_API_KEY'],
    ['claude', 'ANTHROPIC_AUTH_TOKEN'],
    ['claude', 'CLAUDE_CODE_OAUTH_TOKEN'],
    ['codex', 'OPENAI_API_KEY'],
    ['codex', 'CODEX_API_KEY'],
    ['gemini', 'GEMINI_API_KEY'],
    ['gemini', 'GOOGLE_API_KEY'],
    ['gemini', 'GOOGLE_GENAI_USE_VERTEXAI'],
    ['opencode', 'ANTHROPIC_API_KEY'],
    ['copilot', 'COPILOT_GITHUB_TOKEN'],
    ['copilot', 'GH_TOKEN'],
    ['amp', 'AMP_API_KEY'],
    ['cursor', 'CURSOR_API_KEY'],
    ['qwen', 'OPENAI_API_KEY'],
    ['pi', 'ANTHROPIC_API_KEY'],
    ['pi', 'OPENROUTER_API_KEY'],
  ];
  it.each(envCases)('%s: %s set → configured, naming the variable only', async (name, variable) => {
    const { env, home } = cleanEnv({ [variable]: SECRET });
    const info = await inspectBackend(name, env, home);
    expect(info.auth).toBe('configured');
    expect(info.auth_detail).toBe(`${variable} set`);
    expect(JSON.stringify(info)).not.toContain(SECRET);
  });

  it('treats an empty variable as unset', async () => {
    const { env, home } = cleanEnv({ ANTHROPIC_API_KEY: '' });
    expect((await inspectBackend('claude', env, home)).auth).toBe(keychainOrMissing);
  });

  const fileCases: [AgentCliName, string, string][] = [
    ['claude', '.claude/.credentials.json', `{"claudeAiOauth":{"accessToken":"${SECRET}"}}`],
    ['codex', '.codex/auth.json', `{"OPENAI_API_KEY":"${SECRET}"}`],
    ['gemini', '.gemini/oauth_creds.json', `{"access_token":"${SECRET}"}`],
    ['gemini', '.gemini/.env', `# keys\nexport GEMINI_API_KEY=${SECRET}\n`],
    ['opencode', '.local/share/opencode/auth.json', `{"anthropic":{"type":"api","key":"${SECRET}"}}`],
    ['copilot', '.copilot/config.json', `{"logged_in_users":[{"host":"https://github.com","login":"me"}]}`],
    ['cline', '.cline/data/settings/providers.json', `{"anthropic":{"apiKey":"${SECRET}"}}`],
    ['amp', '.local/share/amp/secrets.json', `{"apiKey@https://ampcode.com/":"${SECRET}"}`],
    ['cursor', '.config/cursor/auth.json', `{"accessToken":"${SECRET}"}`],
    ['cursor', '.cursor/auth.json', `{"accessToken":"${SECRET}"}`],
    ['qwen', '.qwen/oauth_creds.json', `{"access_token":"${SECRET}"}`],
    ['qwen', '.qwen/.env', `OPENAI_API_KEY=${SECRET}\n`],
    ['pi', '.pi/agent/auth.json', `{"anthropic":{"type":"api_key","key":"${SECRET}"}}`],
  ];
  it.each(fileCases)('%s: ~/%s → configured, naming the file only', async (name, path, content) => {
    const { env, home } = cleanEnv();
    expect((await inspectBackend(name, env, home)).auth).not.toBe('configured');
    write(home, path, content);
    const info = await inspectBackend(name, env, home);
    expect(info.auth).toBe('configured');
    expect(info.auth_detail).toBe(`~/${path}`);
    expect(JSON.stringify(info)).not.toContain(SECRET);
  });

  it('follows the directories the CLIs themselves honour (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_DATA_HOME, …)', async () => {
    const elsewhere = makeWorkspace();
    write(elsewhere, 'claude/.credentials.json', '{}');
    write(elsewhere, 'codex/auth.json', '{}');
    write(elsewhere, 'data/opencode/auth.json', '{}');
    write(elsewhere, 'data/amp/secrets.json', '{}');
    write(elsewhere, 'gemini-home/.gemini/oauth_creds.json', '{}');
    write(elsewhere, 'copilot/config.json', '{"logged_in_users":[{"login":"me"}]}');
    write(elsewhere, 'cline/data/settings/providers.json', '{}');
    const { env, home } = cleanEnv({
      CLAUDE_CONFIG_DIR: join(elsewhere, 'claude'),
      CODEX_HOME: join(elsewhere, 'codex'),
      XDG_DATA_HOME: join(elsewhere, 'data'),
      GEMINI_CLI_HOME: join(elsewhere, 'gemini-home'),
      COPILOT_HOME: join(elsewhere, 'copilot'),
      CLINE_DIR: join(elsewhere, 'cline'),
    });
    for (const name of ['claude', 'codex', 'opencode', 'amp', 'gemini', 'copilot', 'cline'] as const) {
      const info = await inspectBackend(name, env, home);
      expect(info.auth, name).toBe('configured');
      expect(info.auth_detail.startsWith(elsewhere), name).toBe(true);
    }
  });

  it('does not count files that hold no credentials', async () => {
    const { env, home } = cleanEnv();
    write(home, '.gemini/.env', 'GEMINI_API_KEY=\nGEMINI_MODEL=gemini-2.5-pro\n# GOOGLE_API_KEY=x\n');
    write(home, '.copilot/config.json', '{"logged_in_users":[],"trusted_folders":[]}');
    write(home, '.qwen/.env', 'OPENAI_MODEL=qwen3-coder\n');
    // pi writes an empty auth.json on its first start.
    write(home, '.pi/agent/auth.json', '{}');
    expect((await inspectBackend('pi', env, home)).auth).toBe('missing');
    expect((await inspectBackend('gemini', env, home)).auth).toBe('missing');
    expect((await inspectBackend('copilot', env, home)).auth).toBe('missing');
    expect((await inspectBackend('qwen', env, home)).auth).toBe('missing');
  });

  it('says unknown where credentials may live out of sight, and missing with what to do otherwise', async () => {
    const { env, home } = cleanEnv();
    const missing = await inspectBackend('codex', env, home);
    expect(missing).toMatchObject({
      auth: 'missing',
      auth_detail: 'run `codex login`, or set CODEX_API_KEY',
    });
    write(home, '.config/gh/hosts.yml', 'github.com:\n  user: me\n');
    expect(await inspectBackend('copilot', env, home)).toMatchObject({
      auth: 'unknown',
      auth_detail: 'Copilot falls back to the gh CLI login',
    });
    write(home, '.qwen/settings.json', '{"security":{"auth":{"selectedType":"openai"}}}');
    expect(await inspectBackend('qwen', env, home)).toMatchObject({
      auth: 'unknown',
      auth_detail: '~/.qwen/settings.json may configure a provider key',
    });
    expect((await inspectBackend('opencode', { ...env, OPENCODE_CONFIG_CONTENT: '{}' }, home)).auth).toBe(
      'unknown',
    );
  });
});

describe('inspectBackends', () => {
  it('inspects every known CLI, in order, with the same results as inspectBackend', async () => {
    const bin = fakeBin({ claude: 'echo "2.1.329 (Claude Code)"', qwen: 'echo 0.24.4' });
    const { env, home } = cleanEnv({ PATH: bin, AMP_API_KEY: SECRET });
    const all = await inspectBackends(env, home);
    expect(all.map((b) => b.name)).toEqual([...AGENT_CLI_NAMES]);
    for (const info of all) expect(info).toEqual(await inspectBackend(info.name, env, home));
    expect(all.filter((b) => b.installed).map((b) => [b.name, b.version])).toEqual([
      ['claude', '2.1.329 (Claude Code)'],
      ['qwen', '0.24.4'],
    ]);
    expect(all.find((b) => b.name === 'amp')?.auth).toBe('configured');
    expect(JSON.stringify(all)).not.toContain(SECRET);
  });
});
