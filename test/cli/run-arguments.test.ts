import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

/** A workspace whose agent is `echo`: --dry-run prints the config and the exact agent command. */
const workspace = () =>
  makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n  command: echo\n', 'PROMPT.md': 'do it\n' });

describe('ralph run arguments', () => {
  it('ralph run 20 means --max-iterations 20 (as ralph 20 does), and the 20 never reaches the agent', async () => {
    const dir = workspace();
    for (const args of [
      ['run', '20', '--dry-run'],
      ['20', '--dry-run'],
    ]) {
      const r = await runCliInMemory(args, { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^ {2}max_iterations: 20$/m);
      expect(r.stdout).toMatch(/^echo$/m);
    }
  });

  it('passes only what follows -- to the agent', async () => {
    const r = await runCliInMemory(['run', '--dry-run', '--', '--model', 'x'], { cwd: workspace() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^echo --model x$/m);
  });

  it('refuses words before -- instead of handing them to the agent, and says where they go', async () => {
    const r = await runCliInMemory(['run', 'fix', 'the', 'bug', '--dry-run'], { cwd: workspace() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unexpected argument "fix"');
    expect(r.stderr).toContain('ralph run -- fix the bug');
    expect(r.stdout).toBe('');
  });

  it.each([
    [['run', '--completion-promise', '--dry-run'], '--completion-promise', '--dry-run'],
    [['run', '-c', '--fresh'], '--config', '--fresh'],
    [['run', '--max-iterations', '-v'], '--max-iterations', '-v'],
  ])('%j: a flag swallowed as an option value is an error naming both', async (args, option, flag) => {
    const r = await runCliInMemory(args, { cwd: workspace() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${option} expects a value but got the flag ${flag}`);
    expect(r.stdout).toBe('');
  });
});

describe('ralph run --help', () => {
  it('says what --no-tui does: plain lines instead of the terminal UI', async () => {
    const r = await runCliInMemory(['run', '--help'], { cwd: workspace() });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      '--no-tui plain lines instead of the terminal UI (the TUI is on by default on a terminal',
    );
  });
});
