import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace, ROOT, seed000 } from '../helpers/workspace.ts';

describe('config errors', () => {
  it('reports a misspelled key as ralph.yml:L:C with the closest valid key, for run and config validate', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'x\n',
      'ralph.yml': 'event_loop:\n  max_iterations: 5\n  cooldown_delay_secs: 3\ncli:\n  backend: fake\n',
    });
    for (const args of [['run'], ['config', 'validate']]) {
      const r = await runCliInMemory(args, { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('ralph.yml:3:3');
      expect(r.stderr).toContain('did you mean "cooldown_delay_seconds"');
    }
    expect(existsSync(join(dir, '.ralph'))).toBe(false);
  });

  it('reports a bad value at its position and a bad --set by its flag', async () => {
    const dir = makeWorkspace({ 'ralph.yml': 'event_loop:\n  max_iterations: many\n' });
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ralph\.yml:2:19: event_loop\.max_iterations: .*number/);
    const dir2 = makeWorkspace({});
    const r2 = await runCliInMemory(['config', 'validate', '--set', 'event_loop.max_iterations=-1'], {
      cwd: dir2,
    });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('--set event_loop.max_iterations=-1');
  });

  it("accepts seed 000's ralph.yml unchanged", async () => {
    const dir = makeWorkspace({ 'ralph.yml': seed000('ralph.yml'), 'PROMPT.md': seed000('PROMPT.md') });
    const r = await runCliInMemory(['config', 'validate'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('valid (backend claude, 3 hats)');
    const show = await runCliInMemory(['config', 'show', '--set', 'event_loop.cooldown_delay_seconds=1'], {
      cwd: dir,
    });
    expect(show.stdout).toContain('cooldown_delay_seconds: 1');
    expect(show.stdout).toContain('persistent: true');
  });
});

describe('help', () => {
  it('lists the commands and exits 0', async () => {
    const r = await runCliInMemory(['--help'], { cwd: ROOT });
    expect(r.code).toBe(0);
    for (const cmd of ['run', 'status', 'stop', 'config', 'emit', 'demo']) expect(r.stdout).toContain(cmd);
  });

  it('prints the package version, and package.json installs the command from a file that exists', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const r = await runCliInMemory(['--version'], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
    // `npm install -g` links bin.ralph; a path that does not exist gives no command at all.
    expect(pkg.bin.ralph).toBeDefined();
    expect(existsSync(join(ROOT, pkg.bin.ralph))).toBe(true);
    expect(pkg.name).not.toBe('ralph');
  });
});
