import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxOnText } from '../../src/config/preset-init.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8');

/** The preset names as `ralph presets --json` gives them. */
async function presetNames(): Promise<string[]> {
  const r = await runCliInMemory(['presets', '--json'], { cwd: makeWorkspace({}) });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { name: string }[]).map((p) => p.name);
}

describe('the docs name every preset `ralph presets` lists', () => {
  it('the README (its first-run line and its workflows table) and configuration.md list each one', async () => {
    const names = await presetNames();
    expect(names).toContain('optimize');
    const readme = read('README.md');
    const initLine = readme.split('\n').find((l) => l.startsWith('ralph init --preset solo')) ?? '';
    const configuration = read('docs', 'concepts', 'configuration.md').replace(/\s+/g, ' ');
    const listed = /\(((?:`[a-z]+`, )+`[a-z]+`): the \[guides\]/.exec(configuration)?.[1] ?? '';
    for (const name of names) {
      expect(readme, `README.md workflows table: ${name}`).toContain(`\n| \`${name}\` | `);
      expect(`${initLine},`, `README.md init line: ${name}`).toMatch(new RegExp(`[ ,]${name}[ ,;)]`));
      expect(listed.split(', '), `configuration.md presets: ${name}`).toContain(`\`${name}\``);
    }
  });
});

describe('docs/guide/solo.md shows what `ralph init --preset solo` writes', () => {
  it("the guide's first ralph.yml is the preset's file, which init writes below the schema line", async () => {
    const preset = read('presets', 'solo', 'ralph.yml');
    const first = /```yaml\n([\s\S]*?)```/.exec(read('docs', 'guide', 'solo.md'))?.[1];
    expect(first).toBe(preset);

    const dir = makeWorkspace({});
    const r = await runCliInMemory(['init', '--preset', 'solo'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const sandboxWorks = (await probeSandbox()).ok;
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(
      `# yaml-language-server: $schema=.ralph/ralph.schema.json\n${sandboxWorks ? sandboxOnText(preset) : preset}`,
    );
  });

  it('neither commits nor gates as written; the guide adds both in a separate block', () => {
    const solo = read('docs', 'guide', 'solo.md');
    const preset = read('presets', 'solo', 'ralph.yml');
    expect(preset).not.toMatch(/^git:/m);
    expect(preset).not.toMatch(/^gates:/m);
    const added = /## Adding a tests gate and commits[\s\S]*?```yaml\n([\s\S]*?)```/.exec(solo)?.[1] ?? '';
    expect(added).toContain('git:\n  commit: true\n');
    expect(added).toContain('gates:\n  tests:\n    command: npm test\n');
  });
});
