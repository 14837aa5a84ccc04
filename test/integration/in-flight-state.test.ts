import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStatus } from '../../src/index.ts';
import { makeWorkspace, readState, runRalph } from '../helpers/workspace.ts';

const RUN = '20261126-080000-abcdef';

/** state.json as a loop leaves it after iteration `done` of RUN, saved at `savedAt`. */
function savedState(done: number, savedAt: string): Record<string, unknown> {
  return {
    version: 1,
    run_id: RUN,
    status: 'running',
    started_at: '2026-11-26T08:00:00.000Z',
    updated_at: savedAt,
    pid: 999999,
    workspace: '.',
    backend: 'custom',
    max_iterations: 10,
    iterations: done,
    current: null,
    consecutive_failures: 0,
    cost_usd: 0,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
    elapsed_ms: 0,
    events_file: '.ralph/events-x.jsonl',
    log_file: '.ralph/logs/x.log',
  };
}

function writeRun(dir: string, state: Record<string, unknown>, inFlight: Record<string, unknown>): void {
  const runDir = join(dir, '.ralph', 'runs', RUN);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(dir, '.ralph', 'state.json'), JSON.stringify(state));
  writeFileSync(join(runDir, 'in-flight.json'), `${JSON.stringify(inFlight)}      `);
}

const flight = (number: number, at: string) => ({
  number,
  hat: null,
  started_at: at,
  agent_pid: 4242,
  agent_start_time: '123',
  at,
});

describe('the iteration in flight (runs/<run>/in-flight.json)', () => {
  it('a short iteration rewrites state.json once; its start and agent pid go to the in-flight file', async () => {
    const dir = makeWorkspace({
      'ralph.yml': [
        'event_loop:',
        '  prompt: "noop"',
        '  max_iterations: 6',
        '  cooldown_delay_seconds: 0',
        '  max_idle_iterations: 0',
        'cli:',
        '  backend: custom',
        '  command: "true"',
        '  prompt_mode: stdin',
        '',
      ].join('\n'),
    });
    const trace = join(makeWorkspace(), 'writes.jsonl');
    const r = await runRalph(['run', '-q'], dir, { RALPH_FAULT_TRACE_WRITES: trace });
    // Exit 2: the iterations limit ended it (the no-op agent never says it is done).
    expect(r.code, r.stderr).toBe(2);
    expect(readState(dir)).toMatchObject({ iterations: 6, current: null, stop_reason: 'max_iterations' });
    const writes = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; path: string })
      .filter((w) => w.kind === 'durable');
    const stateWrites = writes.filter((w) => w.path.endsWith('/.ralph/state.json')).length;
    const inFlightWrites = writes.filter((w) => w.path.endsWith('/in-flight.json')).length;
    expect(inFlightWrites).toBe(6);
    // One per iteration (its commit point), plus the run's start and end: was two per iteration.
    expect(stateWrites).toBeLessThanOrEqual(6 + 3);
  });

  it('readers see the in-flight iteration over an older state.json, and not once the state is newer', () => {
    const dir = makeWorkspace();
    writeRun(dir, savedState(1, '2026-11-26T08:00:01.000Z'), flight(2, '2026-11-26T08:00:01.500Z'));
    expect(readStatus(dir).state?.current).toEqual({
      number: 2,
      hat: null,
      started_at: '2026-11-26T08:00:01.500Z',
      agent_pid: 4242,
      agent_start_time: '123',
    });
    // The iteration was recorded after it (iterations 2): the file is history, not in flight.
    writeRun(dir, savedState(2, '2026-11-26T08:00:02.000Z'), flight(2, '2026-11-26T08:00:01.500Z'));
    expect(readStatus(dir).state?.current).toBeNull();
    // A state saved after the in-flight file (a parked iteration, a resume) is the newer word.
    writeRun(
      dir,
      { ...savedState(1, '2026-11-26T08:00:03.000Z'), current: { ...flight(2, 'x'), agent_pid: null } },
      flight(2, '2026-11-26T08:00:01.500Z'),
    );
    expect(readStatus(dir).state?.current?.agent_pid).toBeNull();
    // A torn file (a power loss mid-write) reads as none.
    writeRun(dir, savedState(1, '2026-11-26T08:00:01.000Z'), flight(2, '2026-11-26T08:00:01.500Z'));
    writeFileSync(join(dir, '.ralph', 'runs', RUN, 'in-flight.json'), '{"number":2,"hat":nu');
    expect(readStatus(dir).state?.current).toBeNull();
  });
});
