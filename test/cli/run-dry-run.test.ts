import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { fakeConfig, makeWorkspace } from '../helpers/workspace.ts';

const PROMPT = 'Do the work. Say LOOP_COMPLETE when done.\n';

describe('ralph run --dry-run', () => {
  it('--set overrides config values and --dry-run runs nothing', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig(),
      'fake-agent.yml': 'turns:\n  - do:\n      - write: { path: ran.txt, content: x }\n',
    });
    const r = await runCliInMemory(
      ['run', '--dry-run', '--set', 'event_loop.cooldown_delay_seconds=7', '--max-iterations', '4'],
      { cwd: dir },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cooldown_delay_seconds: 7');
    expect(r.stdout).toContain('max_iterations: 4');
    expect(r.stdout).toContain('# first prompt');
    expect(r.stdout).toContain('Do the work.');
    expect(r.stdout).toContain('# agent command');
    expect(r.stdout).toMatch(/fake-agent\/main\.js --script \S+fake-agent\.yml/);
    expect(readdirSync(dir)).not.toContain('ran.txt');
    expect(readdirSync(dir)).not.toContain('.ralph');
  });
});

describe('ralph run --dry-run with secrets in the config', () => {
  it('masks them in the config with where they were set, and redacts a key in the agent command', async () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuv';
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'agent.sh': '#!/bin/sh\ncat\n',
      'ralph.yml': `cli:\n  backend: custom\n  command: ./agent.sh\n  args: [--key, ${key}]\n  env:\n    SERVICE: plain-but-secret\n`,
    });
    const r = await runCliInMemory(
      ['run', '--dry-run', '--set', 'RObot.telegram.bot_token=123:from-the-flag'],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(key);
    expect(r.stdout).not.toContain('plain-but-secret');
    expect(r.stdout).not.toContain('from-the-flag');
    expect(r.stdout).toContain('- "*** (from project ralph.yml:4)"');
    expect(r.stdout).toContain('SERVICE: "*** (from project ralph.yml:6)"');
    expect(r.stdout).toContain('bot_token: "*** (from --set RObot.telegram.bot_token)"');
    expect(r.stdout).toMatch(/# agent command .*\n\.\/agent\.sh --key '?\[redacted\]'?\n/);
    // config explain: neither the value nor its source (`--set KEY=VALUE`) spells a secret out.
    const explain = await runCliInMemory(
      ['config', 'explain', '--json', '--set', 'RObot.telegram.bot_token=123:from-the-flag'],
      { cwd: dir },
    );
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).not.toMatch(new RegExp(`${key}|plain-but-secret|from-the-flag`));
    const rows = JSON.parse(explain.stdout).keys as { path: string; value: unknown; source: string }[];
    expect(rows.find((r) => r.path === 'RObot.telegram.bot_token')).toEqual({
      path: 'RObot.telegram.bot_token',
      value: '*** (from --set RObot.telegram.bot_token)',
      source: '--set RObot.telegram.bot_token',
    });
    expect(rows.find((r) => r.path === 'cli.args')?.value).toEqual([
      '--key',
      '*** (from project ralph.yml:4)',
    ]);
  });

  it('a cli.env value repeated in cli.args or a gate command is masked there too (config show, explain, dry run)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'agent.sh': '#!/bin/sh\ncat\n',
      'ralph.yml': `cli:\n  backend: custom\n  command: ./agent.sh\n  args: [--token=svc-9f8e7d6c]\n  env:\n    SERVICE: svc-9f8e7d6c\ngates:\n  tests:\n    command: SERVICE=svc-9f8e7d6c true\n`,
    });
    for (const args of [
      ['config', 'show'],
      ['config', 'explain', '--json'],
      ['run', '--dry-run'],
      ['run', '--dry-run', '--json'],
    ]) {
      const r = await runCliInMemory(args, { cwd: dir });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args.join(' ')).not.toContain('svc-9f8e7d6c');
    }
  });
});

describe('ralph run --dry-run over a damaged state.json', () => {
  it('without --fresh it stops as the run would; with --fresh it plans a new run and leaves the file', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig(),
      'fake-agent.yml': 'turns: []\n',
    });
    mkdirSync(join(dir, '.ralph'));
    const state = join(dir, '.ralph', 'state.json');
    writeFileSync(state, '{"version": 1}');
    const plain = await runCliInMemory(['run', '--dry-run'], { cwd: dir });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain(`${state} is damaged (`);
    const fresh = await runCliInMemory(['run', '--dry-run', '--fresh'], { cwd: dir });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('Do the work.');
    // ralph run --fresh would set it aside as state.json.corrupt-<time>; a dry run changes nothing.
    expect(readdirSync(join(dir, '.ralph'))).toEqual(['state.json']);
    expect(readFileSync(state, 'utf8')).toBe('{"version": 1}');
  });
});

describe('choosing the agent', () => {
  it('RALPH_AGENT selects the backend over ralph.yml, -b over both; auto takes the first CLI on PATH', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': 'cli:\n  backend: custom\n  command: my-agent\n  fake_script: fake-agent.yml\n',
      'fake-agent.yml': 'turns:\n  - do: [{ print: hi }]\n',
      'bin/codex': '#!/bin/sh\nexit 0\n',
    });
    const dry = async (args: string[], env: NodeJS.ProcessEnv = {}) =>
      (await runCliInMemory(['run', '--dry-run', ...args], { cwd: dir, env: env })).stdout;
    expect(await dry([])).toMatch(/# agent command[^\n]*\nmy-agent\n/);
    expect(await dry([], { RALPH_AGENT: 'fake' })).toContain('fake-agent/main.js --script');
    expect(await dry(['-b', 'custom'], { RALPH_AGENT: 'fake' })).toMatch(/\nmy-agent\n/);

    const { chmodSync } = await import('node:fs');
    chmodSync(join(dir, 'bin', 'codex'), 0o755);
    writeFileSync(join(dir, 'ralph.yml'), 'cli:\n  backend: auto\n');
    const auto = await dry([], { PATH: `${join(dir, 'bin')}:/usr/bin:/bin` });
    expect(auto).toContain('backend: codex');
    expect(auto).toMatch(/\ncodex exec --json/);
    const none = await runCliInMemory(['run', '--dry-run'], { cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('cli.backend is auto but none of claude, codex');
  });
});

describe('ralph run --dry-run --json (issue 36)', () => {
  const CONFIG = [
    'event_loop:',
    '  max_iterations: 7',
    '  checkpoint_interval: 3', // a ralph-orchestrator key Ralph warns about
    'cli:',
    '  backend: custom',
    '  command: ./agent.sh',
    '  args: [--key, sk-ant-api03-abcdefghijklmnopqrstuv]',
    '  prompt_mode: stdin',
    '  env:',
    '    SERVICE: plain-but-secret',
    'hats:',
    '  builder:',
    '    triggers: [build.start]',
    '    publishes: [build.done]',
    '    instructions: build it',
    'gates:',
    '  validate: "true"',
  ].join('\n');

  it('prints the facts of the text form as one object with snake_case keys, secrets masked', async () => {
    const dir = makeWorkspace({ 'PROMPT.md': PROMPT, 'agent.sh': '#!/bin/sh\ncat\n', 'ralph.yml': CONFIG });
    const r = await runCliInMemory(['run', '--dry-run', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/sk-ant-api03-abcdefghijklmnopqrstuv|plain-but-secret/);
    const facts = JSON.parse(r.stdout);
    expect(Object.keys(facts)).toEqual([
      'config_file',
      'config_files',
      'backend',
      'agent',
      'prompt',
      'wave',
      'hats',
      'limits',
      'gates',
      'sandbox',
      'warnings',
      'config',
    ]);
    expect(facts.config_file).toBe(join(dir, 'ralph.yml'));
    expect(facts.wave).toBeNull();
    expect(facts.backend).toBe('custom');
    expect(facts.agent).toEqual({
      command: './agent.sh',
      args: ['--key', '[redacted]'],
      command_line: './agent.sh --key [redacted]',
      cwd: dir,
      prompt_via: 'stdin',
    });
    expect(facts.hats.builder).toMatchObject({ triggers: ['build.start'], publishes: ['build.done'] });
    expect(facts.limits).toMatchObject({
      max_iterations: 7,
      max_cost_usd: null,
      max_consecutive_failures: 3,
    });
    expect(facts.gates.validate).toBe('true');
    expect(facts.sandbox).toEqual({ mode: 'off' });
    expect(facts.warnings).toEqual([
      expect.stringMatching(/ralph\.yml:3:3: event_loop\.checkpoint_interval: /),
    ]);
    expect(facts.config.cli.env.SERVICE).toMatch(/^\*\*\* \(from /);
    // The prompt is the text form's, byte for byte (the loop's own plan of iteration 1).
    const text = await runCliInMemory(['run', '--dry-run'], { cwd: dir });
    const prompt = /# first prompt \([^)]*\)\n([\s\S]*)\n# agent command/.exec(text.stdout)?.[1];
    expect(facts.prompt).toMatchObject({ text: prompt, bytes: Buffer.byteLength(prompt ?? '') });
    // The text form says the warning too, on stderr.
    expect(text.stderr).toContain('ralph: warning: ralph.yml:3:3: event_loop.checkpoint_interval');
  });

  it('gives the policy of sandbox: on rule by rule, and refuses --json on a run that starts', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'agent.sh': '#!/bin/sh\ncat\n',
      'ralph.yml': 'cli:\n  backend: custom\n  command: ./agent.sh\nsandbox: on\n',
    });
    const r = await runCliInMemory(['run', '--dry-run', '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const { sandbox } = JSON.parse(r.stdout);
    expect(sandbox).toMatchObject({ mode: 'on', network: 'on', workspace: expect.any(String) });
    expect(sandbox.rules).toContainEqual(
      expect.objectContaining({ access: 'read-only', reason: expect.stringContaining('config') }),
    );
    const refused = await runCliInMemory(['run', '--json', '--max-iterations', '1'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--json goes with --dry-run or --estimate');
    expect(readdirSync(dir)).not.toContain('.ralph');
  });
});
