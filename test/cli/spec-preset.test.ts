import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxOnText } from '../../src/config/preset-init.ts';
import { PRESETS, presetFile } from '../../src/config/presets.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { noAgentClis } from '../helpers/doctor-workspace.ts';
import { runFile, specWorkspace } from '../helpers/spec-workspace.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

const FILES = [
  'ralph.yml',
  'ralph',
  'specs/README.md',
  '.ralph/prompts/PROMPT_build.md',
  '.ralph/prompts/PROMPT_plan.md',
  '.ralph/validate.sh',
];

describe('ralph init --preset spec (seed 002)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await specWorkspace();
  });

  it('writes every file verbatim, ./ralph and validate.sh executable', async () => {
    const preset = PRESETS.find((p) => p.name === 'spec');
    expect(preset?.files.slice().sort()).toEqual(FILES.slice().sort());
    const sandboxWorks = (await probeSandbox()).ok;
    for (const file of FILES) {
      const modeline =
        file === 'ralph.yml' ? '# yaml-language-server: $schema=.ralph/ralph.schema.json\n' : '';
      const text = readFileSync(presetFile('spec', file), 'utf8');
      // ralph.yml's commented `sandbox: on` line is turned on where bubblewrap works.
      const written = file === 'ralph.yml' && sandboxWorks ? sandboxOnText(text) : text;
      expect(readFileSync(join(dir, file), 'utf8'), file).toBe(modeline + written);
    }
    for (const file of ['ralph', '.ralph/validate.sh']) {
      expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o755);
    }
  });

  it('lists spec in `ralph presets`, and ralph.yml validates', async () => {
    expect((await runCliInMemory(['presets'], { cwd: dir })).stdout).toMatch(/^spec\s+the spec workflow/m);
    const v = await runCliInMemory(['config', 'validate', '--schema-only'], { cwd: dir });
    expect(v.stderr).toBe('');
    expect(v.code).toBe(0);
    const shown = (await runCliInMemory(['config', 'show'], { cwd: dir })).stdout;
    expect(shown).toContain('prompt_file: .ralph/prompts/PROMPT_build.md');
    expect(shown).toMatch(/on_iteration_timeout: stop/);
    expect(shown).toMatch(/marker:\n\s+file: IMPLEMENTATION_PLAN.md\n\s+text: PROJECT_COMPLETE/);
    expect(shown).toMatch(/git:\n\s+commit: true\n\s+push: false/);
    expect(shown).toMatch(/specs_dir: specs/);
  });

  it('has prompts that carry the workflow of the seed', () => {
    const build = readFileSync(join(dir, '.ralph/prompts/PROMPT_build.md'), 'utf8');
    for (const word of [
      'IMPLEMENTATION_PLAN.md',
      'PROGRESS.md',
      'PROJECT_COMPLETE',
      '[BLOCKED]',
      '## Issues Discovered',
      'Blocked by:',
      'Needs:',
      'git rev-parse --short HEAD',
      'specs/README.md',
      'AGENTS.md',
    ]) {
      expect(build, word).toContain(word);
    }
    // The plan format shown to the agent must not contain the marker, or copying it would end the loop.
    const formats = [...build.matchAll(/```markdown\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
    expect(formats).not.toContain('PROJECT_COMPLETE');

    const plan = readFileSync(join(dir, '.ralph/prompts/PROMPT_plan.md'), 'utf8');
    for (const word of ['IMPLEMENTATION_PLAN.md', 'specs/README.md', 'status:', 'supersedes:', 'questions']) {
      expect(plan, word).toContain(word);
    }
    const index = readFileSync(join(dir, 'specs/README.md'), 'utf8');
    for (const section of [
      '## Active Specifications',
      '## Implemented Specifications',
      '## Superseded Specifications',
      '## Archive',
      'dependencies:',
    ]) {
      expect(index, section).toContain(section);
    }
  });

  it('validate.sh passes in an empty project and fails when a detected test suite fails', async () => {
    const empty = await runFile('./.ralph/validate.sh', [], dir);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('no checks configured');

    const failing = await specWorkspace();
    writeFileSync(join(failing, 'package.json'), JSON.stringify({ scripts: { test: 'exit 3' } }));
    const r = await runFile('./.ralph/validate.sh', [], failing);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain('validate: npm test --silent');

    const placeholder = await specWorkspace();
    writeFileSync(
      join(placeholder, 'package.json'),
      JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
    );
    writeFileSync(join(placeholder, 'Makefile'), 'test:\n\t@echo make-tests-ran\n');
    const m = await runFile('./.ralph/validate.sh', [], placeholder);
    expect(m.code).toBe(0);
    expect(m.stdout).toContain('make-tests-ran');
    expect(m.stdout).not.toContain('npm test');
  });

  it('.ralph/.gitignore keeps runtime state out of git and prompts in', () => {
    const repo = spawnSync('git', ['init', '-q'], { cwd: dir });
    expect(repo.status).toBe(0);
    for (const f of [
      'state.json',
      'state.json.tmp',
      'loop.lock',
      'logs/2026-01-01_001.log',
      'runs/r1/iterations.jsonl',
    ]) {
      mkdirSync(join(dir, '.ralph', f, '..'), { recursive: true });
      writeFileSync(join(dir, '.ralph', f), 'x');
    }
    writeFileSync(join(dir, '.ralph', 'events-20260101-000000.jsonl'), '');
    mkdirSync(join(dir, '.ralph', 'agent'), { recursive: true });
    writeFileSync(join(dir, '.ralph', 'agent', 'scratchpad.md'), 'x');
    writeFileSync(join(dir, '.ralph', 'agent', 'memories.md'), '# Memories\n');
    expect(spawnSync('git', ['add', '-A'], { cwd: dir }).status).toBe(0);
    const tracked = spawnSync('git', ['ls-files'], { cwd: dir, encoding: 'utf8' }).stdout.split('\n');
    expect(tracked).toEqual(
      expect.arrayContaining([...FILES, '.ralph/.gitignore', '.ralph/agent/memories.md']),
    );
    expect(tracked.filter((f) => /state\.json|loop\.lock|logs\/|runs\/|events-|scratchpad/.test(f))).toEqual(
      [],
    );
  });
});

describe('ralph plan --dry-run', () => {
  it('picks the agent as ralph run does: RALPH_AGENT over ralph.yml, -b over both, auto the first CLI on PATH', async () => {
    const dir = makeWorkspace({
      'plan.md': '# Plan mode\n',
      'ralph.yml': 'cli:\n  backend: custom\n  command: my-agent\n  fake_script: fake-agent.yml\n',
      'fake-agent.yml': 'turns:\n  - do: [{ print: hi }]\n',
      'PROMPT.md': 'Do the work.\n',
      'bin/codex': '#!/bin/sh\nexit 0\n',
    });
    chmodSync(join(dir, 'bin', 'codex'), 0o755);
    // The executable each command would start: the line under `# plan session` / `# agent command`.
    const agent = async (command: 'plan' | 'run', args: string[], env: NodeJS.ProcessEnv) => {
      const extra = command === 'plan' ? ['-P', 'plan.md'] : [];
      const r = await runCliInMemory([command, '--dry-run', ...extra, ...args], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      const header = command === 'plan' ? '# plan session' : '# agent command';
      const line = r.stdout.slice(r.stdout.indexOf(header)).split('\n')[1] ?? '';
      return line.split(' ')[0] === process.execPath ? 'fake' : line.split(' ')[0];
    };
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [[], {}, 'my-agent'],
      [[], { RALPH_AGENT: 'fake' }, 'fake'],
      [['-b', 'custom'], { RALPH_AGENT: 'fake' }, 'my-agent'],
      [['-b', 'auto'], { PATH: `${join(dir, 'bin')}:/usr/bin:/bin` }, 'codex'],
      [[], { RALPH_AGENT: 'auto', PATH: `${join(dir, 'bin')}:/usr/bin:/bin` }, 'codex'],
    ];
    for (const [args, env, expected] of cases) {
      const what = `${args.join(' ')} ${JSON.stringify(env)}`;
      expect(await agent('plan', args, env), what).toBe(expected);
      expect(await agent('run', args, env), what).toBe(expected);
    }
  });

  it('normalises the spec name, uses cli.prompt_flag, and builds each agent CLI interactively', async () => {
    const dir = await specWorkspace();
    const dry = (args: string[]) => runCliInMemory(['plan', ...args, '--dry-run'], { cwd: dir });
    for (const name of ['feature-x', 'feature-x.md', 'specs/feature-x.md', './specs/feature-x']) {
      const r = await dry([name, '-b', 'custom', '--set', 'cli.command=agent']);
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toMatch(/Spec to write or refine: specs\/feature-x\.md\n'$/m);
    }
    const flagged = await dry([
      'x',
      '-b',
      'custom',
      '--set',
      'cli.command=agent',
      '--set',
      'cli.prompt_flag=--msg',
    ]);
    expect(flagged.stdout).toMatch(/^agent --msg '# Plan mode/m);

    expect((await dry(['x'])).stdout).toMatch(/^claude '# Plan mode/m); // the preset's backend: no -p
    expect((await dry(['x', '-b', 'codex'])).stdout).toMatch(/^codex '# Plan mode/m);
    expect((await dry(['x', '-b', 'gemini', '--set', 'cli.model=gemini-2.5-pro'])).stdout).toMatch(
      /^gemini --model gemini-2\.5-pro -i '# Plan mode/m,
    );
    expect((await dry(['x', '-b', 'opencode'])).stdout).toMatch(/^opencode --prompt '# Plan mode/m);
    expect((await dry(['x', '-b', 'fake', '--set', 'cli.fake_script=s.yml'])).stdout).toMatch(
      /fake-agent\/main\.js --script \S+\/s\.yml --prompt '# Plan mode/,
    );

    // No agent CLI on PATH (the test's PATH has node_modules/.bin, where claude and codex are).
    const auto = await runCliInMemory(['plan', 'x', '-b', 'auto', '--dry-run'], {
      cwd: dir,
      env: noAgentClis(),
    });
    expect(auto.code).toBe(1);
    expect(auto.stderr).toContain('no backend selected');
    const cline = await dry(['x', '-b', 'cline']);
    expect(cline.code).toBe(1);
    expect(cline.stderr).toContain('-b custom --set cli.command=');
    const outside = await dry(['../x', '-b', 'custom', '--set', 'cli.command=agent']);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('must be a name inside specs/');
  });
});
