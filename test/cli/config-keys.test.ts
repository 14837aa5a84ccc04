import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

/** A ralph.yml with one hat for `backend`, plus extra top-level YAML. */
function hatConfig(backend: string, hatExtra: string, extra = ''): string {
  return [
    'event_loop:',
    '  prompt_file: PROMPT.md',
    'cli:',
    `  backend: ${backend}`,
    '  command: /bin/true',
    '  fake_script: fake-agent.yml',
    'hats:',
    '  worker:',
    '    name: Worker',
    '    triggers: [task.start]',
    '    instructions: Do the work.',
    hatExtra,
    extra,
  ].join('\n');
}

async function dryRun(files: Record<string, string>) {
  const dir = makeWorkspace({ 'PROMPT.md': 'Build it.\n', ...files });
  const r = await runCliInMemory(['run', '--dry-run'], { cwd: dir });
  return { ...r, dir };
}

describe('hats.<hat>.disallowed_tools reaches the agent command line', () => {
  it('claude gets --disallowedTools with the tools', async () => {
    const r = await dryRun({
      'ralph.yml': hatConfig('claude', '    disallowed_tools: [Bash, "Bash(git push:*)"]'),
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain("--disallowedTools 'Bash,Bash(git push:*)'");
  });

  it('gemini gets a --policy file that denies each tool', async () => {
    const r = await dryRun({ 'ralph.yml': hatConfig('gemini', '    disallowed_tools: [run_shell_command]') });
    const policy = /--policy=(\S+\.toml)/.exec(r.stdout)?.[1];
    expect(policy, r.stdout).toBeDefined();
    expect(policy!.startsWith(join(r.dir, '.ralph', 'gemini'))).toBe(true);
    expect(readFileSync(policy!, 'utf8')).toBe(
      '[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 999\n',
    );
  });

  it('claude gets rules.deny as Edit rules in the same --disallowedTools; approve and unpassable globs stay out', async () => {
    const r = await dryRun({
      'ralph.yml': hatConfig(
        'claude',
        '    disallowed_tools: [Bash]',
        'rules:\n  deny: [secrets/, "{a,b}.txt"]\n  approve: [package.json]\n',
      ),
    });
    expect(r.stderr).toBe('');
    // One flag, one value: the hat's tool, then the passable deny glob (not approve, not the brace).
    expect(r.stdout.match(/--disallowedTools '([^']*)'/g)).toEqual([
      `--disallowedTools 'Bash,Edit(/${r.dir}/secrets/**)'`,
    ]);
  });

  it('copilot gets one --deny-tool per tool', async () => {
    const r = await dryRun({ 'ralph.yml': hatConfig('copilot', '    disallowed_tools: [shell, write]') });
    expect(r.stdout).toContain('--deny-tool=shell --deny-tool=write');
  });

  it('a backend that cannot refuse tools fails validate and run, naming the backend and the key', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build it.\n',
      'ralph.yml': hatConfig('codex', '    disallowed_tools: [shell]'),
    });
    for (const args of [['config', 'validate'], ['run']]) {
      const r = await runCliInMemory(args, { cwd: dir });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(
        /ralph\.yml:\d+:\d+: hats\.worker\.disallowed_tools: backend codex cannot refuse tools .*use a backend that can \(claude, gemini, copilot\)/,
      );
    }
    expect(existsSync(join(dir, '.ralph', 'state.json'))).toBe(false);
  });
});

describe('keys that shape the prompt', () => {
  it('core.guardrails, the hat description and events.<topic> metadata are in the prompt', async () => {
    const r = await dryRun({
      'ralph.yml': [
        hatConfig('claude', '    description: Builds one thing per iteration.\n    publishes: [build.done]'),
        'core:',
        '  guardrails: ["Never edit generated files.", "Run the tests before you finish."]',
        'events:',
        '  task.start:',
        '    on_trigger: Read the plan first.',
        '  build.done:',
        '    description: One thing is built.',
        '    on_publish: Publish it after the tests pass.',
      ].join('\n'),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## Hat: Worker\nBuilds one thing per iteration.\n\nDo the work.');
    expect(r.stdout).toContain(
      '## Guardrails\n1. Never edit generated files.\n2. Run the tests before you finish.',
    );
    expect(r.stdout).toContain('## Events\n- task.start\n  Read the plan first.');
    expect(r.stdout).toContain('- build.done: One thing is built. Publish it after the tests pass.');
  });

  it('memories.filter keeps only the chosen types, tags and newest entries', async () => {
    const memories = [
      '# Memories',
      '',
      '## Patterns',
      '',
      '### mem-1-a',
      '> pattern about builds',
      '<!-- tags: build | created: 2026-01-01T00:00:00.000Z -->',
      '',
      '## Fixes',
      '',
      '### mem-2-b',
      '> old fix about builds',
      '<!-- tags: build | created: 2026-01-02T00:00:00.000Z -->',
      '',
      '### mem-3-c',
      '> new fix about builds',
      '<!-- tags: build | created: 2026-01-03T00:00:00.000Z -->',
      '',
      '### mem-4-d',
      '> fix about docs',
      '<!-- tags: docs | created: 2026-01-04T00:00:00.000Z -->',
      '',
    ].join('\n');
    const r = await dryRun({
      '.ralph/agent/memories.md': memories,
      'ralph.yml': `${hatConfig('claude', '')}\nmemories:\n  filter: { types: [fix], tags: [build], recent: 1 }\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('new fix about builds');
    for (const gone of ['pattern about builds', 'old fix about builds', 'fix about docs'])
      expect(r.stdout).not.toContain(gone);
  });
});

describe('config values Ralph cannot act on are rejected by name', () => {
  const cases: [string, string, RegExp][] = [
    [
      'default_mode interactive',
      'cli:\n  default_mode: interactive\n',
      /cli\.default_mode: ralph run is always autonomous; for an interactive session use `ralph plan`/,
    ],
    [
      'RObot with a Bot API that is not a URL',
      'RObot:\n  enabled: true\n  telegram:\n    api_url: api.telegram.org\n',
      /RObot\.telegram\.api_url: must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      'backend kiro with a command of its own (ralph-orchestrator runs kiro-cli as it is)',
      'cli:\n  backend: kiro\n  command: ./kiro.sh\n',
      /cli\.backend: backend "kiro" is not supported: Ralph has no headless driver for kiro-cli/,
    ],
    [
      "backend roo as a hat's (ralph-orchestrator names it)",
      'hats:\n  builder:\n    triggers: [build.start]\n    backend: roo\n',
      /hats\.builder\.backend: backend "roo" is not supported: .*cli\.backend: custom and cli\.command: roo/,
    ],
    [
      'an unknown backend',
      'cli:\n  backend: claud\n',
      /cli\.backend: unknown backend "claud"; use one of auto, claude, codex/,
    ],
    [
      'starting_hat of no hat',
      'event_loop:\n  starting_hat: nobody\nhats:\n  a:\n    triggers: [x]\n',
      /event_loop\.starting_hat: starting_hat "nobody" is not a hat of this config \(hats: a\)/,
    ],
  ];
  it.each(cases)('%s', async (_name, yml, message) => {
    const dir = makeWorkspace({ 'ralph.yml': yml });
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ {2}ralph\.yml:\d+:\d+: /m);
    expect(r.stderr).toMatch(message);
  });

  it('seed 000 style RObot: { enabled: false } and default_mode: autonomous stay valid', async () => {
    const dir = makeWorkspace({
      'ralph.yml':
        'cli:\n  backend: fake\n  fake_script: agent.yml\n  default_mode: autonomous\nRObot:\n  enabled: false\n',
      'agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
    });
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('never writes a policy file for a hat without disallowed_tools', async () => {
    const r = await dryRun({ 'ralph.yml': hatConfig('gemini', '') });
    expect(r.code).toBe(0);
    expect(existsSync(join(r.dir, '.ralph')) ? readdirSync(join(r.dir, '.ralph')) : []).not.toContain(
      'gemini',
    );
  });
});
