import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// Configs written in ralph-orchestrator's documented format (its v1 flat keys, the keys it accepts
// that Ralph has no use for, a hat's object `backend`), one feature per config.

const validate = (dir: string, ...flags: string[]) =>
  runCliInMemory(['config', 'validate', '--schema-only', ...flags], { cwd: dir });

describe('config validate on ralph-orchestrator configs', () => {
  it('warns once per ignored key, naming it, its place and what Ralph does instead', async () => {
    const dir = makeWorkspace({
      'ralph.yml': [
        'cli:',
        '  backend: codex',
        '  pty_mode: true',
        '  pty_interactive: false',
        '  idle_timeout_secs: 30',
        'event_loop:',
        '  max_iterations: 10',
        '  checkpoint_interval: 5',
        '  idle_timeout_secs: 1800',
        '',
      ].join('\n'),
    });
    const r = await validate(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ralph.yml: valid (backend codex)');
    const warnings = r.stdout.split('\n').filter((l) => l.startsWith('  ! '));
    expect(warnings).toEqual([
      '  ! ralph.yml:3:3: cli.pty_mode: ralph-orchestrator key: Ralph runs agents headless without a PTY; ignored',
      '  ! ralph.yml:4:3: cli.pty_interactive: ralph-orchestrator key: Ralph runs agents headless without a PTY; ignored',
      expect.stringMatching(
        /^ {2}! ralph\.yml:5:3: cli\.idle_timeout_secs: .*event_loop\.idle_timeout_seconds; ignored$/,
      ),
      expect.stringMatching(
        /^ {2}! ralph\.yml:8:3: event_loop\.checkpoint_interval: .*git\.commit: true.*; ignored$/,
      ),
      expect.stringMatching(
        /^ {2}! ralph\.yml:9:3: event_loop\.idle_timeout_secs: .*does not read this key either.*; ignored$/,
      ),
    ]);
    // The resolved config holds none of them.
    const shown = await runCliInMemory(['config', 'show'], { cwd: dir });
    expect(shown.stdout).not.toMatch(/pty_mode|pty_interactive|checkpoint_interval|idle_timeout_secs/);
  });

  it('--strict makes the warnings errors, with the exit code of an invalid config', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: codex\n  pty_mode: true\n' });
    const invalid = await validate(
      makeWorkspace({ 'ralph.yml': 'cli:\n  backend: codex\n  pty_mod: true\n' }),
    );
    const r = await validate(dir, '--strict');
    expect(r.code).toBe(invalid.code);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^ {2}ralph\.yml:3:3: cli\.pty_mode: ralph-orchestrator key: .*ignored$/m);
    expect(r.stdout).toBe('');
    expect(
      (await validate(makeWorkspace({ 'ralph.yml': 'cli:\n  backend: codex\n' }), '--strict')).code,
    ).toBe(0);
  });

  it('a key neither knows stays an error with a suggestion', async () => {
    const r = await validate(
      makeWorkspace({
        'ralph.yml': 'cli:\n  backend: codex\n  pty_mod: true\nevent_loop:\n  max_iteratons: 3\n',
      }),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'ralph.yml:3:3: cli.pty_mod: unknown key "pty_mod" — did you mean "pty_mode"?',
    );
    expect(r.stderr).toContain(
      'ralph.yml:5:3: event_loop.max_iteratons: unknown key "max_iteratons" — did you mean "max_iterations"?',
    );
  });

  it('reads the v1 flat keys as ralph-orchestrator maps them, one note each', async () => {
    const dir = makeWorkspace({
      'ralph.yml': [
        'agent: codex',
        'prompt_file: TASK.md',
        'completion_promise: ALL_DONE',
        'max_iterations: 7',
        'max_runtime: 900',
        'max_cost: 3.5',
        'hats:',
        '  builder:',
        '    subscribes_to: [build.task]',
        '    publishes: [build.done]',
        '',
      ].join('\n'),
    });
    const r = await validate(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('valid (backend codex, 1 hats)');
    for (const [line, note] of [
      ['1:1', 'agent: v1 key agent read as cli.backend'],
      ['4:1', 'max_iterations: v1 key max_iterations read as event_loop.max_iterations'],
      ['5:1', 'max_runtime: v1 key max_runtime read as event_loop.max_runtime_seconds'],
      ['9:5', 'hats.builder.subscribes_to: v1 key subscribes_to read as hats.builder.triggers'],
    ])
      expect(r.stdout).toContain(`  · ralph.yml:${line}: ${note}\n`);
    const explain = await runCliInMemory(['config', 'explain', '--json'], { cwd: dir });
    const keys = JSON.parse(explain.stdout).keys as { path: string; value: unknown }[];
    const value = (path: string) => keys.find((k) => k.path === path)?.value;
    expect(value('event_loop.max_iterations')).toBe(7);
    expect(value('event_loop.max_runtime_seconds')).toBe(900);
    expect(value('event_loop.max_cost_usd')).toBe(3.5);
    expect(value('event_loop.completion_promise')).toBe('ALL_DONE');
    expect(value('event_loop.prompt_file')).toBe('TASK.md');
    expect(value('hats.builder.triggers')).toEqual(['build.task']);
  });

  it("accepts a hat's backend in its object form", async () => {
    const dir = makeWorkspace({
      'ralph.yml': [
        'cli:',
        '  backend: claude',
        'hats:',
        '  reviewer:',
        '    triggers: [review.request]',
        '    backend:',
        '      type: codex',
        '      args: [--full-auto]',
        '  runner:',
        '    triggers: [run.request]',
        '    backend:',
        '      command: ./agent.sh',
        '',
      ].join('\n'),
    });
    const r = await validate(dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '  · ralph.yml:6:5: hats.reviewer.backend: backend {type: codex, …} read as backend codex, args [--full-auto]\n',
    );
    expect(r.stdout).toContain(
      'hats.runner.backend: backend {command: ./agent.sh, …} read as backend custom',
    );
    const explain = await runCliInMemory(['config', 'explain', 'hats.reviewer', '--json'], { cwd: dir });
    expect(explain.stdout).not.toContain('[object Object]');
  });

  it('runs kiro, kiro-acp, roo and forge as ralph-orchestrator does: the command, the prompt last, text out', async () => {
    const cases = [
      ['kiro', 'kiro-cli', ['chat', '--no-interactive', '--trust-all-tools'], undefined],
      ['kiro-acp', 'kiro-cli', ['chat', '--no-interactive', '--trust-all-tools'], undefined],
      ['roo', 'roo', ['--print', '--ephemeral'], undefined],
      ['forge', 'forge', [], '-p'],
    ] as const;
    for (const [name, command, args, flag] of cases) {
      const dir = makeWorkspace({ 'ralph.yml': `cli:\n  backend: ${name}\n` });
      const r = await validate(dir);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('valid (backend custom)');
      expect(r.stdout).toContain(`cli.backend: backend ${name} read as backend custom: \``);
      const value = async (key: string) =>
        JSON.parse((await runCliInMemory(['config', 'explain', key, '--json'], { cwd: dir })).stdout).keys[0]
          ?.value;
      expect(await value('cli.command')).toBe(command);
      expect(await value('cli.args')).toEqual(args);
      expect(await value('cli.prompt_mode')).toBe('arg');
      if (flag) expect(await value('cli.prompt_flag')).toBe(flag);
    }
    // Its own arguments come after the backend's.
    const dir = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: roo\n  args: [--model, x]\n' });
    const explain = await runCliInMemory(['config', 'explain', 'cli.args', '--json'], { cwd: dir });
    expect(JSON.parse(explain.stdout).keys[0].value).toEqual(['--print', '--ephemeral', '--model', 'x']);
  });

  it("names roo with the custom command that runs it when it is a hat's backend", async () => {
    const yml = 'hats:\n  builder:\n    triggers: [build.start]\n    backend: roo\n';
    const r = await validate(makeWorkspace({ 'ralph.yml': yml }));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'hats.builder.backend: backend "roo" is not supported: Ralph has no driver for the roo CLI; run it with cli.backend: custom and cli.command: roo',
    );
  });

  it('its lifecycle hooks (once planned, issue 35) load as its minimal example writes them', async () => {
    const yml = [
      'hooks:',
      '  enabled: true',
      '  defaults:',
      '    timeout_seconds: 30',
      '    max_output_bytes: 8192',
      '    suspend_mode: wait_for_resume',
      '  events:',
      '    pre.loop.start:',
      '      - name: env-guard',
      '        command: ["./scripts/env-guard.sh"]',
      '        on_error: block',
      '    post.loop.complete:',
      '      - name: notify',
      '        command: ["./scripts/notify.sh"]',
      '        on_error: warn',
      '',
    ].join('\n');
    const r = await validate(makeWorkspace({ 'ralph.yml': yml }));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ralph.yml: valid');
    expect(r.stdout).not.toContain('hooks');
  });
});

describe('config validate refuses what ralph run refuses: RObot without a bot token', () => {
  const yml =
    'cli:\n  backend: custom\n  command: /bin/true\nRObot:\n  enabled: true\n  timeout_seconds: 60\n';

  it('without RALPH_TELEGRAM_BOT_TOKEN or RObot.telegram.bot_token: the run’s own refusal, exit 1', async () => {
    const dir = makeWorkspace({ 'ralph.yml': yml, 'PROMPT.md': 'x\n' });
    const r = await runCliInMemory(['config', 'validate'], {
      cwd: dir,
      env: { RALPH_TELEGRAM_BOT_TOKEN: '' },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ telegram: RObot.enabled is true but there is no bot token');
  });

  it('with the token in the environment it is valid', async () => {
    const dir = makeWorkspace({ 'ralph.yml': yml, 'PROMPT.md': 'x\n' });
    const env = { RALPH_TELEGRAM_BOT_TOKEN: '123:abc' };
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir, env });
    expect(r.stdout).toBe(`${dir}/ralph.yml: valid (backend custom)\n`);
    expect(r.code).toBe(0);
  });
});

describe('ralph tools task ensure in both signatures', () => {
  const tools = (dir: string, ...args: string[]) => runCliInMemory(['tools', 'task', ...args], { cwd: dir });

  it("ralph-orchestrator's `ensure TITLE --key K` and Ralph's `ensure K TITLE` are the same task", async () => {
    const dir = makeWorkspace();
    const a = await tools(
      dir,
      'ensure',
      'Run baseline measurement',
      '--key',
      'autoresearch:baseline',
      '-p',
      '2',
    );
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const b = await tools(dir, 'ensure', 'autoresearch:baseline', 'Another title');
    expect(b.stdout).toBe(a.stdout);
    const list = JSON.parse((await tools(dir, 'list', '--format', 'json')).stdout);
    expect(list).toEqual([expect.objectContaining({ title: 'Run baseline measurement', priority: 2 })]);
  });

  it('a key given twice, or none, is a usage error that shows both forms', async () => {
    const dir = makeWorkspace();
    const twice = await tools(dir, 'ensure', 'k', 'Title', '--key', 'k2');
    expect(twice.code).not.toBe(0);
    expect(twice.stderr).toContain('`ensure KEY TITLE` or `ensure TITLE --key KEY`');
    const none = await tools(dir, 'ensure', 'Title only');
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('task ensure needs a key and a title');
  });
});
