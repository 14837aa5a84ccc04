import { copyFileSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

// `skills:` as ralph-orchestrator writes it, and `ralph tools skill list|load` on it (in process).

const FIXTURES = join(ROOT, 'test/fixtures/ralph-orchestrator');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const TDD = [
  '---',
  'name: test-driven-development',
  'description: Red, green, refactor — one failing test at a time',
  'tags: [testing]',
  '---',
  '',
  '# Test-driven development',
  '',
  '1. Write one failing test.',
  '',
].join('\n');
const ARCHITECT = '---\nname: architect\ndescription: How to shape modules\n---\nKeep modules small.\n';

const ralph = (dir: string, ...args: string[]) => runCliInMemory(args, { cwd: dir });

describe("ralph-orchestrator's three configs with skills: load", () => {
  it.each([
    ['ralph.own.yml', '.claude/skills'],
    ['ralph.bot.yml', '.claude/skills'],
    ['ralph.m.yml', '.ralph/skills'],
  ])('%s validates, and its skills dir lists and loads', async (file, skillsDir) => {
    const dir = makeWorkspace({
      'ralph.yml': fixture(file),
      'PROMPT.md': 'improve it\n',
      [`${skillsDir}/tdd/SKILL.md`]: TDD,
      [`${skillsDir}/architect.md`]: ARCHITECT,
    });
    const v = await ralph(dir, 'config', 'validate', '--schema-only');
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain('ralph.yml: valid');
    expect(v.stdout).not.toContain('skills');

    const list = await ralph(dir, 'tools', 'skill', 'list', '--format', 'quiet');
    expect(list.stdout).toBe('architect\ntest-driven-development\n');
    const load = await ralph(dir, 'tools', 'skill', 'load', 'test-driven-development');
    expect(load.code).toBe(0);
    expect(load.stdout).toBe(
      '<test-driven-development-skill>\n# Test-driven development\n\n1. Write one failing test.\n</test-driven-development-skill>\n',
    );
  });

  it("ralph.m.yml as a workspace's ralph.yml: `config show` holds its skills block as written", async () => {
    const dir = makeWorkspace({ 'PROMPT.md': 'x\n' });
    copyFileSync(join(FIXTURES, 'ralph.m.yml'), join(dir, 'ralph.yml'));
    const shown = await ralph(dir, 'config', 'show');
    expect(parse(shown.stdout).skills).toEqual({
      enabled: true,
      dirs: ['.ralph/skills'],
      overrides: {},
    });
  });
});

describe('ralph tools skill', () => {
  const yml = 'cli:\n  backend: claude\nskills:\n  dirs: [skills]\n';

  it('list: a table for people, --json (its keys, snake_case) and --format json for scripts', async () => {
    const dir = makeWorkspace({
      'ralph.yml': yml,
      'skills/tdd/SKILL.md': TDD,
      'skills/plain.md': '# Plain\n',
    });
    const table = await ralph(dir, 'tools', 'skill', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+FILE\s+DESCRIPTION$/);
    expect(table.stdout).toMatch(/plain\s+\S+skills\/plain\.md\s+\(no description\)/);
    expect(table.stdout).toMatch(/test-driven-development\s+\S+skills\/tdd\/SKILL\.md\s+Red, green/);
    const json = JSON.parse((await ralph(dir, 'tools', 'skill', 'list', '--json')).stdout);
    expect(json).toEqual([
      {
        name: 'plain',
        description: '',
        source: 'file',
        path: join(dir, 'skills/plain.md'),
        hats: [],
        backends: [],
        tags: [],
        auto_inject: false,
      },
      expect.objectContaining({ name: 'test-driven-development', tags: ['testing'] }),
    ]);
    expect((await ralph(dir, 'tools', 'skill', 'list', '--format', 'json')).stdout).toBe(
      `${JSON.stringify(json, null, 2)}\n`,
    );
  });

  it('load of an unknown skill: exit 1 and one line listing the skills there are', async () => {
    const dir = makeWorkspace({
      'ralph.yml': yml,
      'skills/tdd/SKILL.md': TDD,
      'skills/architect.md': ARCHITECT,
    });
    const r = await ralph(dir, 'tools', 'skill', 'load', 'tdd');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('ralph: no skill "tdd": the skills are: architect, test-driven-development\n');
  });

  it('without skills: says how to configure them; an agent finds its workspace by RALPH_WORKSPACE_ROOT', async () => {
    const none = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: claude\n' });
    expect((await ralph(none, 'tools', 'skill', 'list')).stdout).toBe(
      'no skills: add `skills: {dirs: [DIR]}` to ralph.yml\n',
    );
    const load = await ralph(none, 'tools', 'skill', 'load', 'x');
    expect(load.stderr).toContain('no skills are configured: add `skills: {dirs: [DIR]}` to ralph.yml');
    const ws = makeWorkspace({ 'ralph.yml': yml, 'skills/architect.md': ARCHITECT });
    const inside = await runCliInMemory(['tools', 'skill', 'load', 'architect'], {
      cwd: none,
      env: { RALPH_WORKSPACE_ROOT: ws },
    });
    expect(inside.stdout).toBe('<architect-skill>\nKeep modules small.\n</architect-skill>\n');
    const rooted = await ralph(none, 'tools', 'skill', 'list', '--format', 'quiet', '--root', ws);
    expect(rooted.stdout).toBe('architect\n');
    const relative = await ralph(
      join(ws, '..'),
      'tools',
      'skill',
      'list',
      '--format',
      'quiet',
      '--root',
      basename(ws),
    );
    expect(relative.stdout).toBe('architect\n');
  });

  it('skills.enabled: false and an override enabled: false hide skills from list and load', async () => {
    const dir = makeWorkspace({
      'ralph.yml': `${yml}  overrides:\n    architect:\n      enabled: false\n`,
      'skills/tdd/SKILL.md': TDD,
      'skills/architect.md': ARCHITECT,
    });
    expect((await ralph(dir, 'tools', 'skill', 'list', '--format', 'quiet')).stdout).toBe(
      'test-driven-development\n',
    );
    expect((await ralph(dir, 'tools', 'skill', 'load', 'architect')).code).toBe(1);
    const off = makeWorkspace({ 'ralph.yml': `${yml}  enabled: false\n`, 'skills/architect.md': ARCHITECT });
    expect((await ralph(off, 'tools', 'skill', 'list', '--format', 'quiet')).stdout).toBe('');
  });

  it('run --dry-run: the first prompt lists the skills; without skills: it has no skills section', async () => {
    const dir = makeWorkspace({ 'ralph.yml': yml, 'PROMPT.md': 'build\n', 'skills/tdd/SKILL.md': TDD });
    const dry = await runCliInMemory(['run', '--dry-run', '-b', 'custom', '--set', 'cli.command=/bin/true'], {
      cwd: dir,
    });
    expect(dry.stdout).toContain(
      '## Skills\nWhen one applies, read it with `ralph tools skill load <name>`:\n- test-driven-development: Red, green, refactor — one failing test at a time\n',
    );
    const plain = makeWorkspace({ 'ralph.yml': 'cli:\n  backend: claude\n', 'PROMPT.md': 'build\n' });
    const dry2 = await runCliInMemory(
      ['run', '--dry-run', '-b', 'custom', '--set', 'cli.command=/bin/true'],
      {
        cwd: plain,
      },
    );
    expect(dry2.stdout).toContain('# first prompt');
    expect(dry2.stdout).not.toContain('Skills');
  });

  it('config validate warns of a skills dir that is not there, naming it (not an error)', async () => {
    const base = 'cli:\n  backend: custom\n  command: /bin/true\nskills:\n  dirs: [skills, .claude/skills]\n';
    const dir = makeWorkspace({ 'ralph.yml': base, 'PROMPT.md': 'x\n', 'skills/a.md': ARCHITECT });
    const r = await ralph(dir, 'config', 'validate');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'skills.dirs: .claude/skills is not a directory (in the workspace or a parent): it adds no skills',
    );
    expect(r.stdout).not.toContain('skills.dirs: skills ');
  });
});
