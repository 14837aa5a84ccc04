import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assemblePrompt, type PromptInput } from '../../../src/routing/assemble-prompt.ts';
import {
  MAX_INJECTED_SKILL,
  MAX_INJECTED_SKILLS,
  MAX_LISTED_SKILLS,
  MAX_SKILL_LINE,
  skillsSection,
} from '../../../src/routing/skills-section.ts';
import { oneLine } from '../../../src/skills/skill-file.ts';

const input = (over: Partial<PromptInput> = {}): PromptInput => ({
  base: '# Task\n',
  completionPromise: 'LOOP_COMPLETE',
  hat: null,
  hatsMode: false,
  events: [],
  scratchpad: null,
  scratchpadBudget: 6000,
  memories: '',
  readyTasks: [],
  ...over,
});

describe('skillsSection', () => {
  it('lists each skill on one line under the command that loads it', () => {
    expect(
      skillsSection([
        { name: 'pdd', description: 'Prompt-driven development' },
        { name: 'tdd', description: '' },
      ]),
    ).toBe(
      '## Skills\nWhen one applies, read it with `ralph tools skill load <name>`:\n- pdd: Prompt-driven development\n- tdd',
    );
  });

  it('no skills: nothing, and the prompt is byte for byte the one without skills', () => {
    expect(skillsSection([])).toBe('');
    expect(assemblePrompt(input({ skills: [] }))).toBe(assemblePrompt(input()));
  });

  it('a skill injected whole follows the list in its tags; one too long is cut with how to read it all', () => {
    const long = `${'line of the skill\n'.repeat(1000)}`;
    const out = skillsSection([
      { name: 'short', description: 'd', text: 'Do this.\n' },
      { name: 'long', description: 'd', text: long },
    ]);
    expect(out).toContain('<short-skill>\nDo this.\n</short-skill>');
    expect(out).toContain('[cut: `ralph tools skill load long` prints it whole]\n</long-skill>');
    expect(out.length).toBeLessThan(MAX_INJECTED_SKILL + 1000);
  });

  it('property: the section stays bounded however many and however big the skills are', () => {
    const skill = fc.record({
      name: fc.stringMatching(/^[a-z0-9-]{1,400}$/),
      description: fc.string({ maxLength: 2000 }).map(oneLine),
      text: fc.option(fc.string({ maxLength: 20_000 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(skill, { maxLength: 60 }), (skills) => {
        const out = skillsSection(skills);
        const listed = Math.min(skills.length, MAX_LISTED_SKILLS);
        const lineBound = listed * (2 * MAX_SKILL_LINE + 8) + 200;
        const injectedBound = MAX_INJECTED_SKILLS + listed * (2 * MAX_SKILL_LINE + 100);
        expect(out.length).toBeLessThanOrEqual(lineBound + injectedBound);
        const list = out.split('\n\n')[0] ?? '';
        expect(list.split('\n').filter((l) => l.startsWith('- ')).length).toBe(
          listed + (skills.length > listed ? 1 : 0),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('sits after the guardrails in the prompt', () => {
    const out = assemblePrompt(
      input({ guardrails: ['Be careful'], skills: [{ name: 'x', description: 'y' }] }),
    );
    expect(out.indexOf('## Guardrails')).toBeLessThan(out.indexOf('## Skills'));
    expect(out.indexOf('## Skills')).toBeLessThan(out.indexOf('## DONE'));
  });
});
