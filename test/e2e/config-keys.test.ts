import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

// What config keys put in the prompt and the agent command (--dry-run) and what validate rejects run in
// process: test/cli/config-keys.test.ts.
describe('keys that shape the prompt', () => {
  it("a hat's own scratchpad is the one its prompt shows", async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build it.\n',
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
        'hats:',
        '  worker:',
        '    triggers: [task.start, again]',
        '    instructions: Do the work.',
        '    scratchpad: notes/worker.md',
      ].join('\n'),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do: [{ write: { path: notes/worker.md, content: "worker notes here\\n" } }, { run: "ralph emit again" }]',
        '  - when: { prompt: "## Scratchpad \\\\(notes/worker\\\\.md\\\\)\\nworker notes here" }',
        '    do: [{ run: "ralph emit LOOP_COMPLETE" }]',
        '  - do: [{ exit: 3 }]',
      ].join('\n'),
    });
    const r = await runRalph(['run', '--max-iterations', '3'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readState(dir).stop_reason).toBe('completed');
    expect(readState(dir).iterations).toBe(2);
  });
});

describe('keys that change what the loop does', () => {
  it('cancellation_promise as the last line stops the loop as cancelled (exit 0), not completed', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build it. If it cannot be done, say LOOP_CANCELLED.\n',
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        '  cancellation_promise: LOOP_CANCELLED',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
      ].join('\n'),
      'fake-agent.yml': 'turns:\n  - do: [{ print: "This cannot be done here.\\nLOOP_CANCELLED\\n" }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const state = readState(dir);
    expect(state.stop_reason).toBe('cancelled');
    expect(state.status).not.toBe('completed');
    expect(state.iterations).toBe(1);
    expect(r.stdout + r.stderr).toContain('cancelled the loop with "LOOP_CANCELLED"');
  });

  it('an echo of the prompt that ends with the cancellation promise does not cancel', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build it. If it cannot be done, end with:\nLOOP_CANCELLED\n',
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        '  cancellation_promise: LOOP_CANCELLED',
        '  max_iterations: 2',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
      ].join('\n'),
      'fake-agent.yml': 'turns:\n  - do: [{ echo_prompt: true }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_iterations');
  });

  it('starting_hat starts the run with that hat (its first trigger)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Build it.\n',
      'ralph.yml': [
        'event_loop:',
        '  prompt_file: PROMPT.md',
        '  starting_hat: builder',
        'cli:',
        '  backend: fake',
        '  fake_script: fake-agent.yml',
        'hats:',
        '  planner:',
        '    triggers: [task.start]',
        '    instructions: Plan.',
        '  builder:',
        '    triggers: [build.go, build.again]',
        '    instructions: Build.',
      ].join('\n'),
      'fake-agent.yml':
        'turns:\n  - when: { hat: builder }\n    do: [{ run: "ralph emit LOOP_COMPLETE" }]\n  - do: [{ exit: 3 }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code, r.stderr).toBe(0);
    const first = JSON.parse(
      readFileSync(join(dir, '.ralph', 'runs', readState(dir).run_id, 'iterations.jsonl'), 'utf8').split(
        '\n',
      )[0]!,
    );
    expect(first.hat).toBe('builder');
  });
});
