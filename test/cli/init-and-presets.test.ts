import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxOnText } from '../../src/config/preset-init.ts';
import { probeSandbox } from '../../src/sandbox/probe.ts';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace, ROOT } from '../helpers/workspace.ts';

describe('ralph init and presets', () => {
  it('writes the board preset (seed 000 artifacts) and refuses to overwrite without --force', async () => {
    const dir = makeWorkspace({});
    const r = await runCliInMemory(['init', '--preset', 'board'], { cwd: dir });
    expect(r.code).toBe(0);
    // The preset's file as written, below the editor-schema line `ralph init` adds; its commented
    // `sandbox: on` line turned on where bubblewrap works here, and nothing else changed.
    const preset = readFileSync(join(ROOT, 'presets', 'board', 'ralph.yml'), 'utf8');
    const sandboxWorks = (await probeSandbox()).ok;
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toBe(
      `# yaml-language-server: $schema=.ralph/ralph.schema.json\n${sandboxWorks ? sandboxOnText(preset) : preset}`,
    );
    expect(r.stdout).toContain(sandboxWorks ? 'sandbox: on (bwrap works here' : 'sandbox: left off (');
    expect(readFileSync(join(dir, 'PROMPT.md'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'test', 'fixtures', 'seed-000', 'PROMPT.md'), 'utf8'),
    );
    expect(readFileSync(join(dir, 'work', 'item-2.txt'), 'utf8')).toContain('design patterns used in Go');
    expect(existsSync(join(dir, 'proposed'))).toBe(true);
    expect(existsSync(join(dir, 'done'))).toBe(true);
    expect((await runCliInMemory(['hats', 'validate'], { cwd: dir })).code).toBe(0);

    writeFileSync(join(dir, 'PROMPT.md'), 'mine\n');
    const again = await runCliInMemory(['init', '--preset', 'board'], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--force');
    expect(readFileSync(join(dir, 'PROMPT.md'), 'utf8')).toBe('mine\n');

    const forced = await runCliInMemory(['init', '--preset', 'board', '--force', '--backend', 'fake'], {
      cwd: dir,
    });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'ralph.yml'), 'utf8')).toMatch(/backend: fake/);
    expect((await runCliInMemory(['presets'], { cwd: dir })).stdout).toMatch(/board\s+the hat board/);
    expect((await runCliInMemory(['init', '--preset', 'nope'], { cwd: dir })).stderr).toContain(
      'unknown preset "nope"',
    );
  });
});
