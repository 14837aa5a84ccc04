import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SkillsConfig } from '../../../src/config/schema/prompt.ts';
import { RalphError } from '../../../src/errors.ts';
import { skillDirs, visibleSkills } from '../../../src/skills/skill-dirs.ts';
import { parseSkillFile } from '../../../src/skills/skill-file.ts';
import {
  discoverSkills,
  findSkill,
  loadSkills,
  MAX_SKILL_BYTES,
  skillText,
} from '../../../src/skills/skill-registry.ts';
import { makeWorkspace } from '../../helpers/workspace.ts';

const skills = (over: Partial<SkillsConfig> = {}): SkillsConfig => ({
  enabled: true,
  dirs: ['.claude/skills'],
  overrides: {},
  ...over,
});
const discover = (config: SkillsConfig | undefined, workspace: string) =>
  discoverSkills(config, workspace, parseSkillFile);
const skill = (name: string, description: string, extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n\nBody of ${name}.\n`;

describe('discoverSkills', () => {
  it('finds NAME.md and NAME/SKILL.md files, named by their front matter, else by file or folder', () => {
    const ws = makeWorkspace({
      '.claude/skills/tdd/SKILL.md': skill('test-driven-development', 'Red, green, refactor'),
      '.claude/skills/pdd/SKILL.md': '# no front matter\n',
      '.claude/skills/notes.md': skill('notes', 'Loose notes'),
      '.claude/skills/empty-dir/other.md': 'not a skill: SKILL.md only, one level down\n',
      '.claude/skills/readme.txt': 'not markdown\n',
    });
    const found = discover(skills(), ws);
    expect(found.map((s) => [s.name, s.description])).toEqual([
      ['notes', 'Loose notes'],
      ['pdd', ''],
      ['test-driven-development', 'Red, green, refactor'],
    ]);
    expect(found[2]).toMatchObject({
      path: join(ws, '.claude/skills/tdd/SKILL.md'),
      body: '# test-driven-development\n\nBody of test-driven-development.\n',
      autoInject: false,
      truncated: false,
    });
  });

  it('loadSkills: the same skills, with the parser loaded on demand; none without dirs', async () => {
    const ws = makeWorkspace({ '.claude/skills/a.md': skill('a', 'A') });
    expect(await loadSkills(skills(), ws)).toEqual(discover(skills(), ws));
    expect(await loadSkills(skills({ dirs: [] }), ws)).toEqual([]);
    expect(await loadSkills(undefined, ws)).toEqual([]);
  });

  it('absent, disabled or with no dirs: none, and no directory is read', () => {
    const ws = makeWorkspace({ '.claude/skills/a.md': skill('a', 'A') });
    expect(discover(undefined, ws)).toEqual([]);
    expect(discover(skills({ enabled: false }), ws)).toEqual([]);
    expect(discover(skills({ dirs: [] }), ws)).toEqual([]);
    expect(skillDirs(skills({ enabled: false }), ws)).toEqual([]);
  });

  it('a later directory replaces a skill of the same name; a missing directory is skipped', () => {
    const ws = makeWorkspace({
      'one/x.md': skill('x', 'from one'),
      'two/x/SKILL.md': skill('x', 'from two'),
    });
    const found = discover(skills({ dirs: ['one', 'missing', 'two'] }), ws);
    expect(found.map((s) => s.description)).toEqual(['from two']);
  });

  it('a relative dir not in the workspace is found in the nearest parent that has it', () => {
    const top = makeWorkspace({ 'shared/skills/up.md': skill('up', 'From above') });
    const ws = join(top, 'project', 'sub');
    mkdirSync(ws, { recursive: true });
    expect(skillDirs(skills({ dirs: ['shared/skills'] }), ws)).toEqual([join(top, 'shared/skills')]);
    expect(discover(skills({ dirs: ['shared/skills'] }), ws).map((s) => s.name)).toEqual(['up']);
    expect(skillDirs(skills({ dirs: ['nowhere-at-all'] }), ws)).toEqual([join(ws, 'nowhere-at-all')]);
  });

  it('overrides drop a skill, replace its hats, backends and tags, and inject it whole', () => {
    const ws = makeWorkspace({
      '.claude/skills/a.md': skill('a', 'A', 'hats: [builder]\ntags: [x]\n'),
      '.claude/skills/b.md': skill('b', 'B'),
    });
    const found = discover(
      skills({
        overrides: {
          a: { hats: ['reviewer'], backends: ['claude'], tags: [], auto_inject: true },
          b: { enabled: false, hats: [], backends: [], tags: [] },
          nope: { enabled: false, hats: [], backends: [], tags: [] },
        },
      }),
      ws,
    );
    expect(found).toEqual([
      expect.objectContaining({
        name: 'a',
        hats: ['reviewer'],
        backends: ['claude'],
        tags: ['x'],
        autoInject: true,
      }),
    ]);
  });

  it('reads at most MAX_SKILL_BYTES of a huge file, cut at a line end, and says where the rest is', () => {
    const ws = makeWorkspace({
      '.claude/skills/huge.md': `---\nname: huge\n---\n${'0123456789abcdef\n'.repeat((MAX_SKILL_BYTES / 17) * 2)}`,
    });
    const [huge] = discover(skills(), ws);
    expect(huge?.truncated).toBe(true);
    expect(Buffer.byteLength(huge?.body ?? '')).toBeLessThanOrEqual(MAX_SKILL_BYTES);
    expect(huge?.body.endsWith('0123456789abcdef\n')).toBe(true);
    expect(skillText(huge!)).toContain(
      `[cut at 256 KB: the rest is in ${join(ws, '.claude/skills/huge.md')}]`,
    );
  });

  it('skips what is not a regular file: a FIFO named like a skill never blocks the read', () => {
    const ws = makeWorkspace({ '.claude/skills/ok.md': skill('ok', 'fine') });
    execFileSync('mkfifo', [join(ws, '.claude/skills/fifo.md')]);
    mkdirSync(join(ws, '.claude/skills/pipe'));
    execFileSync('mkfifo', [join(ws, '.claude/skills/pipe/SKILL.md')]);
    expect(discover(skills(), ws).map((s) => s.name)).toEqual(['ok']);
  });

  it('reads a changed file again', () => {
    const ws = makeWorkspace({ '.claude/skills/a.md': skill('a', 'first') });
    expect(discover(skills(), ws)[0]?.description).toBe('first');
    writeFileSync(join(ws, '.claude/skills/a.md'), skill('a', 'second, longer'));
    expect(discover(skills(), ws)[0]?.description).toBe('second, longer');
  });
});

describe('visibleSkills', () => {
  const ws = makeWorkspace({
    's/any.md': skill('any', 'for all'),
    's/built.md': skill('built', 'builder only', 'hats: [builder]\n'),
    's/codex.md': skill('codex', 'codex only', 'backends: [codex]\n'),
  });
  const all = discover(skills({ dirs: ['s'] }), ws);
  const names = (hat: string | null, backend: string) => visibleSkills(all, hat, backend).map((s) => s.name);

  it("lists a hat's skills to that hat, every skill in solo mode, a backend's to that backend", () => {
    expect(names('builder', 'claude')).toEqual(['any', 'built']);
    expect(names('reviewer', 'claude')).toEqual(['any']);
    expect(names(null, 'claude')).toEqual(['any', 'built']);
    expect(names(null, 'codex')).toEqual(['any', 'built', 'codex']);
  });
});

describe('findSkill and skillText', () => {
  const ws = makeWorkspace({ 's/a.md': skill('a', 'A'), 's/b.md': skill('b', 'B') });
  const all = discover(skills({ dirs: ['s'] }), ws);

  it('prints the body in <NAME-skill> tags', () => {
    expect(skillText(findSkill(all, 'a', [join(ws, 's')]))).toBe(
      '<a-skill>\n# a\n\nBody of a.\n</a-skill>\n',
    );
  });

  it('an unknown name: skill_not_found listing the skills there are, or where none were found', () => {
    const error = (list: typeof all, dirs: string[]) => {
      try {
        findSkill(list, 'zzz', dirs);
      } catch (e) {
        return e as RalphError;
      }
      throw new Error('no error');
    };
    const e = error(all, ['s']);
    expect(e).toBeInstanceOf(RalphError);
    expect(e.code).toBe('skill_not_found');
    expect(e.message).toBe('no skill "zzz": the skills are: a, b');
    expect(error([], ['/x/skills']).message).toBe(
      'no skill "zzz": no skill files in /x/skills (skills.dirs of ralph.yml)',
    );
    expect(error([], []).message).toBe(
      'no skill "zzz": no skills are configured: add `skills: {dirs: [DIR]}` to ralph.yml',
    );
  });
});
