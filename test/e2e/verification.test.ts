import { afterEach, describe, expect, it } from 'vitest';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import {
  cleanupWorkspaces,
  fakeConfig,
  makeWorkspace,
  readRecords,
  readState,
  runRalph,
} from '../helpers/workspace.ts';

afterEach(cleanupWorkspaces);

describe('no-progress stop (event_loop.max_idle_iterations)', () => {
  it('stops with no_progress (exit 1) after N iterations that moved nothing, naming what was checked', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 20, max_idle_iterations: 3 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: "thinking about it" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readState(dir)).toMatchObject({ stop_reason: 'no_progress', iterations: 3 });
    expect(readState(dir).stop_message).toContain(
      'no file changed, no commit, no task or checklist item moved, no event published',
    );
    expect(readRecords(dir)[0]?.progress).toEqual({
      files: false,
      commit: false,
      tasks: false,
      events: false,
    });
  });

  it('an agent that changes files, moves tasks or publishes events goes on', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 6, max_idle_iterations: 2 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: [1, 4] }',
        '    do: [{ append: { path: notes.md, content: "x\\n" } }]',
        '  - when: { iteration: [2, 5] }',
        '    do: [{ run: "ralph emit step.done" }]',
        '  - do: [{ run: "ralph tools task add \'a task {{iteration}}\' >/dev/null" }]',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readRecords(dir).map((x) => x.progress)).toMatchObject([
      { files: true },
      { events: true },
      { tasks: true },
      { files: true },
      { events: true },
      { tasks: true },
    ]);
  });
});

describe('completion.require_work', () => {
  it('refuses completion from a run that changed nothing (default with git.commit), then accepts real work', async () => {
    const dir = makeGitWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 4 })}git:\n  commit: true\n`,
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do: [{ print: LOOP_COMPLETE }]',
        '  - do:',
        '      - write: { path: done.txt, content: "done\\n" }',
        '      - print: LOOP_COMPLETE',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const [first, second] = readRecords(dir);
    expect(first?.decision?.completion).toMatchObject({ accepted: false });
    expect(first?.decision?.completion?.reasons.join(' ')).toContain('completion.require_work');
    expect(second?.decision?.completion).toMatchObject({ accepted: true });
    expect(readState(dir)).toMatchObject({ stop_reason: 'completed', iterations: 2 });
  });
});

describe('budget foresight', () => {
  it('does not start an iteration projected past max_cost_usd (exit 2, with the projection)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 10, max_cost_usd: 1 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - append: { path: n.txt, content: "x" }\n      - result: { text: ok, cost_usd: 0.4, input_tokens: 10, output_tokens: 10 }\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'max_cost', iterations: 2 });
    expect(state.stop_message).toBe(
      'next iteration projected at $0.4000, $0.2000 left of max_cost_usd ($1); not started',
    );
    expect(r.stderr + r.stdout).toContain('80 % of the cost limit used');
  });
});

describe('ralph explain', () => {
  it('prints every iteration’s route, completion, gates, progress, limits and the stop; --json and --iteration', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2, max_cost_usd: 5 })}gates:\n  tests:\n    command: "true"\n`,
      'fake-agent.yml':
        'turns:\n  - do:\n      - append: { path: n.txt, content: "x" }\n      - print: LOOP_COMPLETE\n',
    });
    expect((await runRalph(['run'], dir)).code).toBe(0);
    const r = await runRalph(['explain'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/iteration 1 · solo · fake · complete/);
    expect(r.stdout).toContain('  completion: accepted');
    expect(r.stdout).toContain('  gates: tests ✓');
    expect(r.stdout).toContain('  limits: iterations 1/2 · runtime');
    expect(r.stdout).toContain('cost $0.0000 of $5.00 (0 %)');
    expect(r.stdout).toMatch(/ {2}stop: completed — completion promise "LOOP_COMPLETE" accepted/);
    const json = await runRalph(['explain', '--json', '--iteration', '1'], dir);
    const line = JSON.parse(json.stdout.trim());
    expect(line.decision).toMatchObject({
      route: { hat: null, backend: 'fake' },
      completion: { accepted: true },
      gates: { tests: true },
      stop: { reason: 'completed' },
    });
    const missing = await runRalph(['explain', '--iteration', '9'], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('has no recorded iteration 9');
  });
});
