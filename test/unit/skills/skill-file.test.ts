import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLine, parseSkillFile } from '../../../src/skills/skill-file.ts';

describe('parseSkillFile', () => {
  it('reads the front matter and keeps the markdown after it as the body', () => {
    const raw = [
      '---',
      'name: tdd',
      'description: >',
      '  Red, green,',
      '  refactor',
      'hats: [builder, reviewer]',
      'backends: claude',
      'tags: [testing]',
      '---',
      '',
      '# TDD',
      '',
      'Write the failing test first.',
      '',
    ].join('\n');
    expect(parseSkillFile(raw, 'fallback')).toEqual({
      name: 'tdd',
      description: 'Red, green, refactor',
      body: '# TDD\n\nWrite the failing test first.\n',
      hats: ['builder', 'reviewer'],
      backends: ['claude'],
      tags: ['testing'],
    });
  });

  it('without front matter: the fallback name, no description, the whole text as the body', () => {
    const raw = '# Just markdown\n\n---\nnot front matter\n';
    expect(parseSkillFile(raw, 'notes')).toMatchObject({ name: 'notes', description: '', body: raw });
  });

  it('front matter that is not YAML (or not a mapping) still loads, by the fallback name', () => {
    const broken = parseSkillFile('---\nthis: is: not: yaml: [[[\n---\n\nBody.\n', 'broken');
    expect(broken).toMatchObject({ name: 'broken', description: '', body: 'Body.\n', hats: [] });
    expect(parseSkillFile('---\n- a list\n---\nBody\n', 'listy')).toMatchObject({
      name: 'listy',
      body: 'Body\n',
    });
  });

  it('an unclosed block is no front matter; fields of the wrong type are ignored', () => {
    const raw = '---\nname: open\nno closing line\n';
    expect(parseSkillFile(raw, 'f')).toMatchObject({ name: 'f', body: raw });
    expect(parseSkillFile('---\nname: 7\ndescription: [x]\nhats: 3\n---\nB\n', 'f')).toMatchObject({
      name: 'f',
      description: '',
      hats: [],
    });
  });

  it('property: any text parses without throwing; name and description are single non-breaking lines', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 40 }), (text, name) => {
        const raw = `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(text)}\n---\n${text}`;
        for (const input of [raw, text]) {
          const skill = parseSkillFile(input, 'fb');
          expect(skill.name).not.toMatch(/\n/);
          expect(skill.name.length).toBeGreaterThan(0);
          expect(skill.description).not.toMatch(/\n/);
        }
        expect(parseSkillFile(raw, 'fb').description).toBe(oneLine(text));
      }),
    );
  });
});
