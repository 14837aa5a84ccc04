import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import {
  fakeConfig,
  pidAlive,
  readRecords,
  readState,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

// The gates.review turn runs under the same caps as an iteration's agent (DESIGN.md §2): the
// run's cost, token and runtime limits mid-turn, the idle timeout, heartbeats and the sweep.

const used: string[] = [];
const PID_FILES = ['reviewer.pid', 'review-daemon.pid', 'review-grandchild.pid'];

function workspace(settings: Record<string, unknown>, reviewer: string[], extra = ''): string {
  const dir = makeGitWorkspace({
    'PROMPT.md': 'write the tool\n',
    'ralph.yml': `${fakeConfig({ kill_grace_seconds: 0.5, ...settings })}gates:\n  review:\n    backend: fake\n${extra}`,
    'fake-agent.yml': [
      'turns:',
      '  - when: { prompt: "second-opinion code reviewer" }',
      '    do:',
      '      - run: "echo $PPID > reviewer.pid"',
      ...reviewer.map((a) => `      - ${a}`),
      '  - do:',
      '      - write: { path: tool.sh, content: "echo hi\\n" }',
      '      - print: LOOP_COMPLETE',
    ].join('\n'),
  });
  used.push(dir);
  return dir;
}

const readPid = (dir: string, name: string) => Number(readFileSync(join(dir, name), 'utf8').trim());

afterEach(() => {
  const pids = used.flatMap((d) => PID_FILES.filter((f) => existsSync(join(d, f))).map((f) => readPid(d, f)));
  killLeftovers(used.splice(0), pids.filter(Number.isInteger));
});

/** The completing iteration was refused, and its review was cut short by `limit`. */
function expectCutShort(dir: string, limit: string) {
  const [record, ...rest] = readRecords(dir);
  expect(rest).toEqual([]);
  expect(record?.decision?.completion?.accepted).toBe(false);
  expect(record?.review).toMatchObject({ approved: false, round: 0 });
  expect(record?.review.findings[0]).toContain(`the review was cut short: reached ${limit}`);
  expect(pidAlive(readPid(dir, 'reviewer.pid'))).toBe(false);
}

describe('the reviewer runs under the run limits', () => {
  it('a reviewer whose streamed cost crosses max_cost_usd is killed mid-turn: stop max_cost (exit 2), its cost counted', async () => {
    const dir = workspace({ iteration_timeout_seconds: 15 }, [
      'result: { text: "thinking hard", cost_usd: 2.5, input_tokens: 10, output_tokens: 10 }',
      'hang: true',
    ]);
    const r = await runRalph(['run', '--max-cost', '1'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'max_cost', iterations: 1 });
    expect(state.cost_usd).toBeCloseTo(2.5);
    expect(state.review.cost_usd).toBeCloseTo(2.5);
    expect(readRecords(dir)[0]?.review.cost_usd).toBeCloseTo(2.5);
    expectCutShort(dir, 'max_cost_usd ($1; spent $2.5000)');
  });

  it('a reviewer whose streamed tokens cross max_tokens is killed mid-turn: stop max_tokens (exit 2)', async () => {
    const dir = workspace({ iteration_timeout_seconds: 15 }, [
      '{ assistant: "reading every file", usage: { input_tokens: 4000, output_tokens: 500 } }',
      'hang: true',
    ]);
    const r = await runRalph(['run', '--set', 'event_loop.max_tokens=1000'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state).toMatchObject({ stop_reason: 'max_tokens', iterations: 1 });
    expect(state.tokens.total).toBe(4500);
    expect(state.review.tokens).toBe(4500);
    expectCutShort(dir, 'max_tokens (1000; used 4500)');
  });

  it('a reviewer still talking when max_runtime_seconds is reached is killed: stop max_runtime (exit 2)', async () => {
    const dir = workspace({ max_runtime_seconds: 8, iteration_timeout_seconds: 15 }, [
      'run: "while true; do echo still reviewing; sleep 0.2; done"',
    ]);
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readState(dir)).toMatchObject({ stop_reason: 'max_runtime', iterations: 1 });
    expectCutShort(dir, 'max_runtime_seconds (8)');
    // Its output went where an iteration's goes: the run log.
    expect(readFileSync(join(dir, readState(dir).log_file), 'utf8')).toContain('still reviewing');
  });
});

describe('the reviewer is supervised like an iteration', () => {
  it('`ralph stop --now` while the reviewer runs kills it (its group) and stops the run as cancelled', async () => {
    const dir = workspace({ iteration_timeout_seconds: 60 }, ['print: "reviewing"', 'hang: true']);
    const loop = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'reviewer.pid')), 20_000, 'the reviewer');
    const asked = Date.now();
    expect((await runRalph(['stop', '--now'], dir)).code).toBe(0);
    const r = await loop.done;
    expect(r.code).toBe(0);
    // Promptly: the tick that reads the control channel, then the group kill (not the 60 s timeout).
    expect(Date.now() - asked).toBeLessThan(15_000);
    expect(readState(dir)).toMatchObject({ stop_reason: 'cancelled' });
    expect(pidAlive(readPid(dir, 'reviewer.pid'))).toBe(false);
  });

  it('a silent reviewer gets heartbeats, then the idle timeout kills it (a failed review, not a stop)', async () => {
    const dir = workspace(
      { max_iterations: 1, idle_timeout_seconds: 5, heartbeat_seconds: 1, iteration_timeout_seconds: 60 },
      ['print: "looking"', 'sleep: 60'],
    );
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(readState(dir).stop_reason).toBe('max_iterations');
    const [record] = readRecords(dir);
    expect(record?.review).toMatchObject({ approved: false, round: 1 });
    expect(record?.review.findings[0]).toContain('the review could not run (fake exited idle_timeout)');
    expect(pidAlive(readPid(dir, 'reviewer.pid'))).toBe(false);
    // The reviewer's spawn and its heartbeats are on the run's event stream, like an iteration's.
    const runId = readState(dir).run_id;
    const stream = readFileSync(join(dir, '.ralph', 'runs', runId, 'stream.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).event);
    const spawns = stream.flatMap((e, i) => (e.type === 'agent.spawned' ? [i] : []));
    expect(spawns).toHaveLength(2);
    const afterReviewer = stream.slice(spawns[1]);
    expect(afterReviewer.some((e) => e.type === 'agent.heartbeat')).toBe(true);
  });

  it.runIf(process.platform === 'linux')(
    'kills what the reviewer left running (its group and what it detached) before the iteration ends, and records it',
    async () => {
      const dir = workspace({ max_iterations: 1 }, [
        'spawn_grandchild: { pid_file: review-grandchild.pid, seconds: 600 }',
        'run: "setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > review-daemon.pid"',
        'result: { text: "Looks right.\\nAPPROVE" }',
      ]);
      const r = await runRalph(['run'], dir);
      expect(r.code).toBe(0);
      const daemon = readPid(dir, 'review-daemon.pid');
      const grandchild = readPid(dir, 'review-grandchild.pid');
      const [record] = readRecords(dir);
      expect(record?.review).toMatchObject({ approved: true });
      const killed = (record?.killed_processes ?? []).map((p: { pid: number }) => p.pid);
      expect(killed).toEqual(expect.arrayContaining([daemon, grandchild]));
      expect(pidAlive(daemon)).toBe(false);
      expect(pidAlive(grandchild)).toBe(false);
      expect(r.stdout).toMatch(/the review after iteration 1 left \d+ process\(es\) running; killed/);
    },
  );
});
