import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeConfig, makeWorkspace, readRecords, readState, runRalph } from '../helpers/workspace.ts';

const PROMPT = 'Do the work. Say LOOP_COMPLETE when done.\n';

// ralph run --dry-run (overrides, choosing the agent) runs in process: test/cli/run-dry-run.test.ts.
describe('ralph run (solo mode, fake backend)', () => {
  it('stops at max iterations with exit 2 and stop_reason max_iterations', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_iterations: 3 }),
      'fake-agent.yml': 'turns:\n  - do:\n      - print: "working on iteration {{iteration}}"\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state.stop_reason).toBe('max_iterations');
    expect(state.iterations).toBe(3);
    expect(state.status).toBe('stopped');
    expect(r.stdout).toContain('iteration 3/3');
    expect(r.stdout).toMatch(/max_iterations/);
    expect(readRecords(dir).map((x) => x.iteration)).toEqual([1, 2, 3]);
  });

  it('`ralph 2` is `ralph run --max-iterations 2`', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig(),
      'fake-agent.yml': 'turns:\n  - do:\n      - print: hi\n',
    });
    const r = await runRalph(['2', '-q'], dir);
    expect(r.code).toBe(2);
    expect(readState(dir).iterations).toBe(2);
    // -q prints only the end summary.
    expect(r.stdout).not.toContain('── iteration');
    expect(r.stdout).toContain('max_iterations');
  });

  it('completes with exit 0 when the promise is the last line of the final output', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_iterations: 10 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 2 }',
        '    do:',
        '      - print: "all done"',
        '      - print: "LOOP_COMPLETE"',
        '      - print: ""',
        '  - do:',
        '      - print: "not yet"',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    const state = readState(dir);
    expect(state.stop_reason).toBe('completed');
    expect(state.status).toBe('completed');
    expect(state.iterations).toBe(2);
  });

  it('does not complete when the promise is only echoed from the prompt or mentioned in prose', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'Finish the task.\nWhen finished print:\nLOOP_COMPLETE\n',
      'ralph.yml': fakeConfig({ max_iterations: 2 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - print: "I will print LOOP_COMPLETE once everything is done."',
        '  - do:',
        '      - print: "Here is what you asked:"',
        '      - echo_prompt: true',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_iterations');
  });

  it('stops with exit 1 after max_consecutive_failures failing iterations', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_consecutive_failures: 3 }),
      'fake-agent.yml': 'turns:\n  - do:\n      - stderr: "boom"\n      - exit: 3\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const state = readState(dir);
    expect(state.stop_reason).toBe('consecutive_failures');
    expect(state.iterations).toBe(3);
    const records = readRecords(dir);
    expect(records.map((x) => x.verdict)).toEqual(['failure', 'failure', 'failure']);
    expect(records[0]?.exit_code).toBe(3);
    expect(records.map((x) => x.consecutive_failures)).toEqual([1, 2, 3]);
  });

  it('counts a crashed agent (killed by a signal) as a failed iteration', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_consecutive_failures: 1 }),
      'fake-agent.yml': 'turns:\n  - do:\n      - print: "about to crash"\n      - crash: true\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readRecords(dir)[0]).toMatchObject({ verdict: 'failure', signal: 'SIGKILL', exit_code: null });
    expect(readRecords(dir)[0]?.reason).toContain('SIGKILL');
  });

  it('a success resets the consecutive failure count', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_consecutive_failures: 2, max_iterations: 5 }),
      'fake-agent.yml':
        'turns:\n  - when: { iteration: [2, 4] }\n    do: [{ append: { path: work.txt, content: "x" } }]\n  - do: [{ exit: 1 }]\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_iterations');
  });

  it('writes the run log in the seed 002 format and one record per iteration', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_iterations: 2 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - assistant: "step {{iteration}}"',
        '        usage: { input_tokens: 1000, output_tokens: 100 }',
        '        model: claude-sonnet-4-5',
        '      - result: { text: "did step {{iteration}}", cost_usd: 0.25, input_tokens: 1000, output_tokens: 100, model: claude-sonnet-4-5 }',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const logs = readdirSync(join(dir, '.ralph', 'logs'));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^\d{4}-\d{2}-\d{2}_001\.log$/);
    const log = readFileSync(join(dir, '.ralph', 'logs', logs[0]!), 'utf8');
    for (const field of [
      'Iteration: 1',
      'Iteration: 2',
      'Mode: solo',
      'Branch:',
      'Started:',
      'Completed:',
      'Duration:',
      'Commit:',
      'Context: 0.5%',
      'Cost: $0.2500',
    ]) {
      expect(log).toContain(field);
    }
    expect(log).toContain('"result":"did step 2"');
    expect(log).toMatch(/Tokens: 1,100 \(in 1,000, out 100/);
    const state = readState(dir);
    expect(state.cost_usd).toBeCloseTo(0.5);
    expect(state.tokens.total).toBe(2200);
    const records = readRecords(dir);
    expect(records).toHaveLength(2);
    expect(records[1]).toMatchObject({
      iteration: 2,
      backend: 'fake',
      cost_usd: 0.25,
      model: 'claude-sonnet-4-5',
      verdict: 'success',
    });
    expect(records[1]?.tokens.total).toBe(1100);
    expect(r.stdout).toMatch(/cost \$0\.50/);
  });

  it('runs a custom command with the prompt as an argument after prompt_flag', async () => {
    const dir = makeWorkspace({
      'ralph.yml': [
        'event_loop:',
        '  max_iterations: 1',
        'cli:',
        '  backend: custom',
        '  command: sh',
        '  args: ["-c", \'printf "%s\\n" "$1" > got.txt; echo LOOP_COMPLETE\', "agent"]',
        '  prompt_mode: arg',
      ].join('\n'),
    });
    const r = await runRalph(['run', '-p', 'hello from the prompt'], dir);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'got.txt'), 'utf8')).toContain('hello from the prompt');
  });

  it('gives the agent the documented environment and runs it in the workspace root', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "env | grep ^RALPH_ | sort > env.txt; pwd > cwd.txt; command -v ralph > which.txt; echo \\"CLAUDECODE=${CLAUDECODE:-unset}\\" >> env.txt"',
        '      - run: "ralph emit work.done \\"item-1.txt\\""',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir, { CLAUDECODE: '1' });
    expect(r.code).toBe(2);
    const env = readFileSync(join(dir, 'env.txt'), 'utf8');
    const state = readState(dir);
    expect(env).toContain('RALPH_ITERATION=1\n');
    expect(env).toContain(`RALPH_RUN_ID=${state.run_id}\n`);
    expect(env).toContain(`RALPH_WORKSPACE_ROOT=${dir}\n`);
    expect(env).toContain(`RALPH_EVENTS_FILE=${join(dir, state.events_file)}\n`);
    expect(env).toMatch(/RALPH_BIN=\/.*bin\/ralph\n/);
    expect(env).toContain('RALPH_HAT=\n');
    expect(env).toContain('CLAUDECODE=unset');
    expect(readFileSync(join(dir, 'cwd.txt'), 'utf8').trim()).toBe(dir);
    expect(readFileSync(join(dir, 'which.txt'), 'utf8').trim()).toMatch(/bin\/ralph$/);
    const events = readFileSync(join(dir, state.events_file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ topic: 'work.done', payload: 'item-1.txt' });
    expect(Date.parse(events[0].ts)).not.toBeNaN();
    expect(readFileSync(join(dir, '.ralph', 'current-events'), 'utf8').trim()).toBe(state.events_file);
  });

  it('reports a missing agent command clearly and exits 1', async () => {
    const dir = makeWorkspace({
      'ralph.yml': 'cli:\n  backend: custom\n  command: definitely-not-an-agent-xyz\n',
    });
    const r = await runRalph(['run', '-p', 'x'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('agent binary not found: definitely-not-an-agent-xyz');
  });
});

describe('secrets', () => {
  it('never writes API keys to the run log or diagnostics', async () => {
    const secret = 'sk-ant-api03-THIS-IS-A-TEST-KEY-0123456789abcdef';
    const dir = makeWorkspace({
      'PROMPT.md': PROMPT,
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - run: "echo using key $ANTHROPIC_API_KEY and $MY_SERVICE_TOKEN"\n',
    });
    const r = await runRalph(['run'], dir, {
      ANTHROPIC_API_KEY: secret,
      MY_SERVICE_TOKEN: 'tok-1234567890',
      RALPH_DIAGNOSTICS: '1',
    });
    expect(r.code).toBe(2);
    const state = readState(dir);
    const log = readFileSync(join(dir, state.log_file), 'utf8');
    expect(log).toContain('using key [redacted] and [redacted]');
    const diag = join(dir, '.ralph', 'diagnostics');
    const files = readdirSync(diag, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    for (const f of files) {
      const text = readFileSync(join(f.parentPath, f.name), 'utf8');
      expect(text).not.toContain(secret);
      expect(text).not.toContain('tok-1234567890');
    }
  });
});
