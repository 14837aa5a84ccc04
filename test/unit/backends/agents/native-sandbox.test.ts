import { describe, expect, it } from 'vitest';
import { claudeBackend } from '../../../../src/backends/agents/claude.ts';
import { codexBackend } from '../../../../src/backends/agents/codex.ts';
import { geminiBackend } from '../../../../src/backends/agents/gemini.ts';
import { BACKEND_DEFINITIONS } from '../../../../src/backends/registry.ts';
import type { Backend } from '../../../../src/backends/types.ts';
import { configSchema } from '../../../../src/config/schema.ts';

/** `sandbox: native` (or the object form) with these cli settings, as the adapter sees it. */
const invoke = (
  backend: Backend,
  sandbox: unknown,
  cli: Record<string, unknown> = {},
  extraArgs: string[] = [],
) =>
  backend.buildInvocation({
    prompt: 'do it',
    config: configSchema.parse({ cli: { backend: backend.name, ...cli }, sandbox }),
    workspace: '/ws',
    extraArgs,
  });

const CLAUDE_SETTINGS = {
  sandbox: {
    enabled: true,
    failIfUnavailable: true,
    autoAllowBashIfSandboxed: true,
    allowUnsandboxedCommands: false,
  },
};
const CLAUDE_HEAD = ['-p', '--output-format', 'stream-json', '--verbose'];

describe('codex under sandbox: native', () => {
  const HEAD = ['exec', '--json', '--skip-git-repo-check', '-c', 'allow_login_shell=false'];

  it('uses its workspace-write sandbox, never asks, and opens the network as sandbox.network says (on by default)', () => {
    expect(invoke(codexBackend, 'native').args).toEqual([
      ...HEAD,
      '--sandbox',
      'workspace-write',
      '-c',
      'approval_policy="never"',
      '-c',
      'sandbox_workspace_write.network_access=true',
      '--',
      'do it',
    ]);
    expect(invoke(codexBackend, { mode: 'native', network: 'off' }, { model: 'gpt-5' }).args).toEqual([
      ...HEAD,
      '--sandbox',
      'workspace-write',
      '-c',
      'approval_policy="never"',
      '-m',
      'gpt-5',
      '--',
      'do it',
    ]);
  });

  it('a sandbox or approval mode chosen in cli.args or after `--` wins: Ralph adds neither its own nor the bypass', () => {
    for (const user of [['--sandbox', 'read-only'], ['-s', 'danger-full-access'], ['--approve-for-me']]) {
      for (const [cli, extra] of [
        [{ args: user }, []],
        [{}, user],
      ] as const) {
        const args = invoke(codexBackend, 'native', cli, [...extra]).args;
        expect(args.slice(0, HEAD.length + user.length)).toEqual([...HEAD, ...user]);
        expect(args).not.toContain('workspace-write');
        expect(args).not.toContain('--dangerously-bypass-approvals-and-sandbox');
      }
    }
  });

  it('sandbox: off and on keep the bypass flag (on: Ralph’s own wrapper is the sandbox)', () => {
    for (const mode of ['off', 'on'])
      expect(invoke(codexBackend, mode).args).toContain('--dangerously-bypass-approvals-and-sandbox');
  });
});

describe('gemini under sandbox: native', () => {
  it('adds --sandbox and keeps --yolo (nobody is there to approve inside it either)', () => {
    expect(invoke(geminiBackend, 'native').args).toEqual([
      '-o',
      'stream-json',
      '--yolo',
      '--skip-trust',
      '--sandbox',
      '--prompt=do it',
    ]);
  });

  it('a sandbox choice in cli.args wins', () => {
    for (const user of [['--sandbox'], ['-s'], ['--sandbox=false'], ['--no-sandbox']]) {
      const args = invoke(geminiBackend, 'native', { args: user }).args;
      expect(args.filter((a) => /sandbox|^-s$/.test(a))).toEqual(user);
    }
  });

  it('off and on add no --sandbox', () => {
    for (const mode of ['off', 'on']) expect(invoke(geminiBackend, mode).args).not.toContain('--sandbox');
  });
});

describe('claude under sandbox: native', () => {
  it('enables its sandbox settings and accepts edits instead of skipping permissions; no IS_SANDBOX', () => {
    const inv = invoke(claudeBackend, 'native', { model: 'sonnet' });
    expect(inv.args).toEqual([
      ...CLAUDE_HEAD,
      '--permission-mode',
      'acceptEdits',
      '--settings',
      JSON.stringify(CLAUDE_SETTINGS),
      '--model',
      'sonnet',
    ]);
    expect(inv.env).toEqual({});
  });

  it('sandbox.network: off denies every domain to its commands', () => {
    const settings = { sandbox: { ...CLAUDE_SETTINGS.sandbox, network: { deniedDomains: ['*'] } } };
    expect(invoke(claudeBackend, { mode: 'native', network: 'off' }).args).toEqual([
      ...CLAUDE_HEAD,
      '--permission-mode',
      'acceptEdits',
      '--settings',
      JSON.stringify(settings),
    ]);
  });

  it('a permission mode in cli.args wins; a --settings in cli.args comes after Ralph’s, so it replaces them', () => {
    for (const user of [
      ['--permission-mode', 'dontAsk'],
      ['--permission-mode=plan'],
      ['--dangerously-skip-permissions'],
    ]) {
      const args = invoke(claudeBackend, 'native', { args: user }).args;
      expect(args).toEqual([...CLAUDE_HEAD, '--settings', JSON.stringify(CLAUDE_SETTINGS), ...user]);
    }
    const args = invoke(claudeBackend, 'native', {}, ['--settings', '{}']).args;
    expect(args.slice(-2)).toEqual(['--settings', '{}']);
    expect(args.indexOf('{}')).toBeGreaterThan(args.indexOf(JSON.stringify(CLAUDE_SETTINGS)));
  });

  it('off and on skip permissions as before', () => {
    for (const mode of ['off', 'on']) {
      const args = invoke(claudeBackend, mode).args;
      expect(args).toContain('--dangerously-skip-permissions');
      expect(args).not.toContain('--settings');
    }
  });
});

describe('backends without a native sandbox', () => {
  it('build the same command under native as under off (Ralph refuses native for them before any run)', () => {
    for (const d of BACKEND_DEFINITIONS.filter((x) => !x.nativeSandbox && x.name !== 'fake')) {
      const cli = { backend: d.name, ...(d.name === 'custom' ? { command: './agent.sh' } : {}) };
      const at = (sandbox: string) => {
        const config = configSchema.parse({ cli, sandbox });
        return d.adapter(config).buildInvocation({ prompt: 'p', config, workspace: '/ws', extraArgs: [] });
      };
      expect(at('native'), d.name).toEqual(at('off'));
    }
  });
});
