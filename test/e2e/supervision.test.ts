import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fakeConfig,
  makeWorkspace,
  pidAlive,
  readRecords,
  readState,
  runRalph,
} from '../helpers/workspace.ts';

const readPid = (dir: string, name: string) => Number(readFileSync(join(dir, name), 'utf8').trim());

describe('process supervision and in-iteration limits', () => {
  it('kills a hung agent and the grandchild holding its stdout at the iteration timeout', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      // Long enough for the agent to write its pid and start the grandchild on a loaded machine.
      'ralph.yml': fakeConfig({
        iteration_timeout_seconds: 5,
        kill_grace_seconds: 0.5,
        max_consecutive_failures: 1,
      }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "echo $PPID > agent.pid"',
        '      - spawn_grandchild: { pid_file: grandchild.pid, seconds: 600 }',
        '      - print: "started, now hanging"',
        '      - hang: true',
      ].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    const [record] = readRecords(dir);
    expect(record).toMatchObject({ killed_by: 'iteration_timeout', verdict: 'failure' });
    expect(record?.reason).toContain('iteration timeout');
    expect(readState(dir).stop_reason).toBe('consecutive_failures');
    expect(pidAlive(readPid(dir, 'agent.pid'))).toBe(false);
    expect(pidAlive(readPid(dir, 'grandchild.pid'))).toBe(false);
  });

  it('does not wait for a leftover grandchild after the agent exits, and kills it', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - spawn_grandchild: { pid_file: grandchild.pid, seconds: 600 }\n      - print: done\n',
    });
    const started = Date.now();
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readRecords(dir)[0]).toMatchObject({ verdict: 'success', exit_code: 0 });
    expect(pidAlive(readPid(dir, 'grandchild.pid'))).toBe(false);
    // The grandchild sleeps 600 s; finishing at all proves the loop did not wait for it.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('kills an agent that stays silent longer than idle_timeout_seconds', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({
        idle_timeout_seconds: 0.5,
        max_consecutive_failures: 1,
        kill_grace_seconds: 0.5,
      }),
      'fake-agent.yml': 'turns:\n  - do:\n      - print: thinking\n      - sleep: 60\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(1);
    expect(readRecords(dir)[0]).toMatchObject({ killed_by: 'idle_timeout', verdict: 'failure' });
  });

  it('enforces max_runtime_seconds during an iteration (exit 2)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      // Long enough for the agent to start and write its pid on a loaded machine.
      'ralph.yml': fakeConfig({ max_runtime_seconds: 5, kill_grace_seconds: 0.5 }),
      'fake-agent.yml': 'turns:\n  - do:\n      - run: "echo $PPID > agent.pid"\n      - hang: true\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state.stop_reason).toBe('max_runtime');
    expect(state.elapsed_ms).toBeGreaterThanOrEqual(5000);
    expect(readRecords(dir)[0]).toMatchObject({ killed_by: 'max_runtime', verdict: 'limit' });
    expect(pidAlive(readPid(dir, 'agent.pid'))).toBe(false);
  });

  it('stops mid-iteration as soon as streamed cost crosses max_cost_usd', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ kill_grace_seconds: 0.5 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - result: { text: "expensive", cost_usd: 2.5, input_tokens: 10, output_tokens: 10 }',
        '      - hang: true',
      ].join('\n'),
    });
    const r = await runRalph(['run', '--max-cost', '1'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state.stop_reason).toBe('max_cost');
    expect(state.cost_usd).toBeCloseTo(2.5);
    expect(readRecords(dir)[0]).toMatchObject({ killed_by: 'max_cost' });
  });

  it('stops mid-iteration when streamed tokens cross max_tokens', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ kill_grace_seconds: 0.5 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - assistant: "reading a lot"',
        '        usage: { input_tokens: 4000, output_tokens: 500 }',
        '      - hang: true',
      ].join('\n'),
    });
    const r = await runRalph(['run', '--set', 'event_loop.max_tokens=1000'], dir);
    expect(r.code).toBe(2);
    expect(readState(dir)).toMatchObject({ stop_reason: 'max_tokens' });
    expect(readState(dir).tokens.total).toBe(4500);
  });

  it('streams the whole output of a chatty agent to the run log', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - run: "i=0; while [ $i -lt 20000 ]; do echo line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; i=$((i+1)); done"\n',
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    const log = readFileSync(join(dir, state.log_file), 'utf8');
    expect(log).toContain('line-0-');
    expect(log).toContain('line-19999-');
  });
});

describe('rate and usage limits', () => {
  it('parks until the reset time and re-runs the same iteration, without counting a failure', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 3, max_consecutive_failures: 1 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1, file_missing: limited.flag }',
        '    do:',
        '      - write: { path: limited.flag, content: x }',
        '      - rate_limit: { resets_in_seconds: 2 }',
        '      - exit: 1',
        '  - when: { iteration: 1 }',
        '    do: [{ append: { path: runs.txt, content: "1\\n" } }]',
        '  - do: [{ append: { path: runs.txt, content: "{{iteration}}\\n" } }, { print: LOOP_COMPLETE }]',
      ].join('\n'),
    });
    const started = Date.now();
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(r.stderr).toContain('ralph: parked');
    const records = readRecords(dir);
    expect(records.map((x) => `${x.iteration}:${x.verdict}`)).toEqual([
      '1:parked',
      '1:success',
      '2:complete',
    ]);
    expect(records[0]?.reason).toContain('rate/usage limit');
    expect(readState(dir)).toMatchObject({
      iterations: 2,
      consecutive_failures: 0,
      stop_reason: 'completed',
    });
    expect(readFileSync(join(dir, 'runs.txt'), 'utf8')).toBe('1\n2\n');
  });
});
