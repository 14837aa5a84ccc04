import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../src/config/presets.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { fakeConfig, readState, runRalph } from '../helpers/workspace.ts';

/** The fake agent of these tests: it keeps the prompt it received in got-<iteration>.md. */
const SAVE_PROMPT = [
  'turns:',
  '  - when: { iteration: 1 }',
  '    do: [{ save_prompt: got-1.md }]',
  '  - do: [{ save_prompt: got-2.md }]',
  '',
].join('\n');

/** The fake backend over whatever the workspace's ralph.yml names. */
const FAKE = ['-b', 'fake', '--set', 'cli.fake_script=fake-agent.yml'];

const TDD_STATE =
  '# Goal\nA correct add function.\n\n# Current task\nMake src/add.txt say correct.\n\n# Constraints\nNone.\n';

/** The prompt `ralph run --dry-run` prints between `# first prompt …` and `# agent command …`. */
async function dryRunPrompt(dir: string, args: string[]): Promise<string> {
  const dry = await runRalph(['run', '--dry-run', ...args], dir);
  expect(dry.code, dry.stderr).toBe(0);
  const match = /# first prompt \([^\n]*\)\n([\s\S]*)\n# agent command/.exec(dry.stdout);
  expect(match, dry.stdout).not.toBeNull();
  return match?.[1] ?? '';
}

/** Dry run, then the real run: the agent receives byte for byte what the dry run printed. */
async function expectSamePrompt(dir: string, args: string[], iteration = 1): Promise<string> {
  const printed = await dryRunPrompt(dir, args);
  const r = await runRalph(['run', '--no-tui', ...args], dir);
  const file = join(dir, `got-${iteration}.md`);
  expect(existsSync(file), `iteration ${iteration} did not run:\n${r.stdout}\n${r.stderr}`).toBe(true);
  const received = readFileSync(file, 'utf8');
  expect(printed).toBe(received);
  return received;
}

/** A git workspace made by `ralph init --preset NAME`, committed, with the prompt-saving agent. */
async function presetWorkspace(preset: string): Promise<string> {
  const dir = makeGitWorkspace({ 'fake-agent.yml': SAVE_PROMPT });
  const init = await runRalph(['init', '--preset', preset], dir);
  expect(init.code, init.stderr).toBe(0);
  if (preset === 'tdd') writeFileSync(join(dir, 'loop', 'state.md'), TDD_STATE);
  // The metric loop rolls back a commit that does not improve the benchmark: the saved prompts stay out of git.
  if (preset === 'optimize') appendFileSync(join(dir, '.git', 'info', 'exclude'), 'got-*.md\n');
  writeFileSync(join(dir, 'fake-agent.yml'), SAVE_PROMPT);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', `ralph init --preset ${preset}`);
  return dir;
}

describe('ralph run --dry-run prints the prompt iteration 1 receives', () => {
  it.each(PRESETS.map((p) => [p.name]))('preset %s', async (preset) => {
    const dir = await presetWorkspace(preset);
    await expectSamePrompt(dir, [...FAKE, '--max-iterations', '1']);
  });

  it('with memories, ready tasks, guidance sent before the run and a stale scratchpad of Ralph', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Do the work.\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}memories:\n  enabled: true\ntasks:\n  enabled: true\n`,
      'fake-agent.yml': SAVE_PROMPT,
    });
    for (const args of [
      ['tools', 'memory', 'add', 'run the tests with npm test', '--type', 'pattern'],
      ['tools', 'task', 'add', 'write the parser', '--priority', '2'],
      ['tell', 'prefer small commits'],
    ]) {
      const r = await runRalph(args, dir);
      expect(r.code, r.stderr).toBe(0);
    }
    // Left by an earlier run: a new run starts Ralph's own scratchpad empty.
    writeFileSync(join(dir, '.ralph', 'agent', 'scratchpad.md'), 'old notes of another run\n');
    const got = await expectSamePrompt(dir, []);
    expect(got).toContain('prefer small commits');
    expect(got).toContain('run the tests with npm test');
    expect(got).toContain('write the parser');
    expect(got).not.toContain('old notes of another run');
  });

  it('with hats: the starting hat, its own scratchpad outside .ralph/, guardrails and event metadata', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Build the thing.\n',
      'notes/planner.md': 'the planner keeps these notes\n',
      'ralph.yml': [
        fakeConfig({ max_iterations: 1, starting_event: 'work.start' }).trimEnd(),
        'core:',
        '  guardrails: ["never edit vendor/"]',
        'events:',
        '  work.start:',
        '    description: the run begins',
        '    on_trigger: plan the work',
        '    on_publish: never',
        'hats:',
        '  planner:',
        '    name: Planner',
        '    description: Plans the work.',
        '    triggers: [work.start]',
        '    publishes: [plan.ready]',
        '    scratchpad: notes/planner.md',
        '    instructions: Write the plan.',
        '  builder:',
        '    triggers: [plan.ready]',
        '    publishes: [LOOP_COMPLETE]',
        '    instructions: Build it.',
        '',
      ].join('\n'),
      'fake-agent.yml': SAVE_PROMPT,
    });
    const got = await expectSamePrompt(dir, []);
    expect(got).toContain('Write the plan.');
    expect(got).toContain('the planner keeps these notes');
    expect(got).toContain('never edit vendor/');
  });

  it('--resume: the TDD report feedback the last iteration left', async () => {
    const dir = await presetWorkspace('tdd');
    // Iteration 1 writes a report without its required sections: the next prompt says what is missing.
    writeFileSync(
      join(dir, 'fake-agent.yml'),
      SAVE_PROMPT.replace(
        '[{ save_prompt: got-1.md }]',
        '[{ write: { path: loop/last_output.md, content: "half a report\\n" } }]',
      ),
    );
    const first = await runRalph(['run', '--no-tui', ...FAKE, '--max-iterations', '1'], dir);
    expect(first.code, first.stderr).toBe(2);
    expect(readState(dir).tdd.report_feedback).toContain('## Report check');
    const got = await expectSamePrompt(dir, [...FAKE, '--max-iterations', '2', '--resume'], 2);
    expect(got).toContain('## Report check');
  });

  it('--resume: the review findings of the last round', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'write the tool\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 1 })}gates:\n  review:\n    backend: fake\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { prompt: "second-opinion code reviewer" }',
        '    do:',
        '      - result: { text: "- add a README\\nREQUEST_CHANGES" }',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - write: { path: tool.sh, content: "echo hi\\n" }',
        '      - print: LOOP_COMPLETE',
        '  - do: [{ save_prompt: got-2.md }]',
        '',
      ].join('\n'),
    });
    const first = await runRalph(['run', '--no-tui'], dir);
    expect(first.stderr).toContain('requested changes');
    const got = await expectSamePrompt(dir, ['--max-iterations', '2', '--resume'], 2);
    expect(got).toContain('## Review findings (second opinion, round 1 of 3)');
  });
});

describe('ralph run --dry-run --json (the built CLI, issue 36)', () => {
  it('names the argv the run spawns and the prompt its agent receives, byte for byte', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'Write the parser.\n',
      'agent.sh': '#!/bin/sh\ncat > got-1.md\n',
      'ralph.yml': 'cli:\n  backend: custom\n  command: sh\n  args: [agent.sh]\n  prompt_mode: stdin\n',
    });
    const dry = await runRalph(['run', '--dry-run', '--json'], dir);
    expect(dry.code, dry.stderr).toBe(0);
    const facts = JSON.parse(dry.stdout);
    expect(facts.agent).toMatchObject({ command: 'sh', args: ['agent.sh'], prompt_via: 'stdin', cwd: dir });
    expect(facts.limits.max_iterations).toBe(100);
    const r = await runRalph(['run', '-q', '--max-iterations', '1'], dir);
    expect(r.code, r.stderr).toBe(2);
    expect(readFileSync(join(dir, 'got-1.md'), 'utf8')).toBe(facts.prompt.text);
  });
});
