import { describe, expect, it } from 'vitest';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

/** A workspace whose agent is `echo`: --dry-run prints the resolved config and runs nothing. */
const workspace = () =>
  makeWorkspace({ 'ralph.yml': 'cli:\n  backend: custom\n  command: echo\n', 'PROMPT.md': 'do it\n' });

describe('numeric flags: one parser, one message style, exit 1 before anything runs', () => {
  it.each([
    [
      ['run', '--max-iterations', 'abc', '--dry-run'],
      '--max-iterations expects a whole number ≥ 1, got "abc"',
    ],
    [
      ['run', '--max-iterations', '1.5', '--dry-run'],
      '--max-iterations expects a whole number ≥ 1, got "1.5"',
    ],
    [['run', '--max-runtime', '0', '--dry-run'], '--max-runtime expects a number > 0, got "0"'],
    [['run', '--max-cost', '', '--dry-run'], '--max-cost expects a number > 0, got ""'],
    [
      ['run', '--parallel', '65', '--dry-run'],
      '--parallel expects a number of workers from 1 to 64, got "65"',
    ],
    [['events', '--last', '0'], '--last expects a whole number ≥ 1, got "0"'],
    [['events', '--iteration', 'two'], '--iteration expects a whole number ≥ 1, got "two"'],
    [['explain', '--iteration', '0'], '--iteration expects a whole number ≥ 1, got "0"'],
    [['dashboard', '--port', '65536'], '--port expects a port from 0 to 65535, got "65536"'],
    [['tools', 'memory', 'prime', '--budget', '-1'], '--budget expects a whole number ≥ 0, got "-1"'],
    [['ask', '--timeout', 'soon', 'why?'], '--timeout expects a number ≥ 0, got "soon"'],
    [['fleet', 'worker', '--lock-ms', '100'], '--lock-ms expects a whole number ≥ 500, got "100"'],
    [['fleet', 'submit', '--max-cost', '-2'], '--max-cost expects a number > 0, got "-2"'],
  ])('%j', async (args, message) => {
    const r = await runCliInMemory(args, { cwd: workspace() });
    expect(r.stderr).toBe(`ralph: ${message}\n`);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('a flag where the number belongs says the value is missing', async () => {
    const r = await runCliInMemory(['events', '--last', '--follow'], { cwd: workspace() });
    expect(r.stderr).toContain('--last expects a value but got the flag --follow');
    expect(r.code).toBe(1);
  });

  it('a good value reaches the config as a number', async () => {
    const r = await runCliInMemory(
      ['run', '--max-iterations', '7', '--max-runtime', '1.5', '--max-cost', '0.25', '--dry-run'],
      { cwd: workspace() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}max_iterations: 7$/m);
    expect(r.stdout).toMatch(/^ {2}max_runtime_seconds: 1\.5$/m);
    expect(r.stdout).toMatch(/^ {2}max_cost_usd: 0\.25$/m);
  });

  it('RALPH_HUMAN_TIMEOUT_SECONDS is checked like --timeout and named in the message', async () => {
    const r = await runCliInMemory(['ask', 'why?'], {
      cwd: workspace(),
      env: { RALPH_HUMAN_TIMEOUT_SECONDS: 'x' },
    });
    expect(r.stderr).toBe('ralph: RALPH_HUMAN_TIMEOUT_SECONDS expects a number ≥ 0, got "x"\n');
    expect(r.code).toBe(1);
  });
});
