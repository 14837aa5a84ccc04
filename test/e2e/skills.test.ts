import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeIgnoreLines } from '../../src/state/runtime-ignore.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import { makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

// `skills:` through the built CLI with shell-script agents (`backend: custom`): the prompt lists the
// skills each hat may use, and the agent reads one with `ralph tools skill load`.

const TDD =
  '---\nname: test-driven-development\ndescription: Red, green, refactor\n---\n\n# TDD\n\nOne failing test first.\n';
const ARCHITECT = '---\nname: architect\ndescription: How to shape modules\n---\nKeep modules small.\n';

/** ralph-orchestrator's own ralph.yml in shape (hats, `skills: {enabled, dirs}`), with an override. */
const HATS_YML = [
  'event_loop:',
  '  prompt_file: PROMPT.md',
  '  completion_promise: LOOP_COMPLETE',
  '  max_iterations: 5',
  '  starting_event: work.start',
  'cli:',
  '  backend: custom',
  '  command: ./agent.sh',
  'hats:',
  '  planner:',
  '    name: Planner',
  '    triggers: [work.start, build.done]',
  '    publishes: [build.task, LOOP_COMPLETE]',
  '    instructions: Plan.',
  '  builder:',
  '    name: Builder',
  '    triggers: [build.task]',
  '    publishes: [build.done]',
  '    instructions: Build.',
  'skills:',
  '  enabled: true',
  '  dirs:',
  '    - .claude/skills',
  '  overrides:',
  '    architect:',
  '      hats: [builder]',
  '',
].join('\n');

/** Keeps each prompt; the builder loads a skill, the planner asks for one there is not, then completes. */
const HATS_AGENT = [
  '#!/bin/sh',
  'cat > "prompt-$RALPH_ITERATION-$RALPH_HAT.txt"',
  'case "$RALPH_HAT" in',
  '  builder) ralph tools skill load test-driven-development > loaded.txt; echo built > built.txt; ralph emit build.done ;;',
  '  *) if [ -f built.txt ]; then',
  '       ralph tools skill load nope 2> unknown.txt; echo $? > unknown-code.txt',
  '       ralph emit LOOP_COMPLETE',
  '     else ralph emit build.task; fi ;;',
  'esac',
  '',
].join('\n');

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const used: string[] = [];
afterEach(() => killLeftovers(used.splice(0)));

describe('skills in a loop', () => {
  it("lists each hat's skills in its prompt, and the agent loads one with ralph tools skill load", async () => {
    const dir = makeWorkspace({
      'ralph.yml': HATS_YML,
      'PROMPT.md': 'build it\n',
      '.claude/skills/tdd/SKILL.md': TDD,
      '.claude/skills/architect.md': ARCHITECT,
      'agent.sh': HATS_AGENT,
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    const v = await runRalph(['config', 'validate', '--schema-only'], dir);
    expect(v.code, v.stdout + v.stderr).toBe(0);

    const r = await runRalph(['run', '--no-tui'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    expect(readRecords(dir).map((x) => x.hat)).toEqual(['planner', 'builder', 'planner']);

    // The planner's prompt lists only the skill for every hat; the builder's both.
    const planner = read(dir, 'prompt-1-planner.txt');
    expect(planner).toContain(
      '## Skills\nWhen one applies, read it with `ralph tools skill load <name>`:\n- test-driven-development: Red, green, refactor\n\n',
    );
    expect(planner).not.toContain('architect');
    expect(read(dir, 'prompt-2-builder.txt')).toContain(
      '- architect: How to shape modules\n- test-driven-development: Red, green, refactor\n',
    );
    expect(read(dir, 'loaded.txt')).toBe(
      '<test-driven-development-skill>\n# TDD\n\nOne failing test first.\n</test-driven-development-skill>\n',
    );
    expect(read(dir, 'unknown-code.txt').trim()).toBe('1');
    expect(read(dir, 'unknown.txt')).toBe(
      'ralph: no skill "nope": the skills are: architect, test-driven-development\n',
    );
  });

  it('under sandbox: on the agent reads skills kept in .ralph/skills (ralph.m.yml’s dirs), which it cannot change', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      '.ralph/.gitignore': `${runtimeIgnoreLines().join('\n')}\n`,
      '.ralph/skills/architect/SKILL.md': ARCHITECT,
      'agent.sh': [
        '#!/bin/sh',
        'cat > prompt.txt',
        '"$RALPH_BIN" tools skill load architect > loaded.txt',
        'echo changed >> .ralph/skills/architect/SKILL.md 2> denied.txt || echo refused > refused.txt',
        'echo LOOP_COMPLETE',
        '',
      ].join('\n'),
      'ralph.yml': [
        'event_loop:',
        '  max_iterations: 1',
        'cli:',
        '  backend: custom',
        '  command: ./agent.sh',
        'skills:',
        '  enabled: true',
        '  dirs:',
        '    - ".ralph/skills"',
        'sandbox: on',
        '',
      ].join('\n'),
    });
    chmodSync(join(dir, 'agent.sh'), 0o755);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'project');
    used.push(dir);
    const r = await runRalph(['run', '--no-tui'], dir, { HOME: makeWorkspace() });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(read(dir, 'prompt.txt')).toContain('- architect: How to shape modules\n');
    expect(read(dir, 'loaded.txt')).toBe('<architect-skill>\nKeep modules small.\n</architect-skill>\n');
    expect(read(dir, 'refused.txt')).toBe('refused\n');
    expect(read(dir, '.ralph/skills/architect/SKILL.md')).toBe(ARCHITECT);
  });
});
