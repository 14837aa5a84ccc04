import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendCommand } from '../../src/human/control-files.ts';
import { type EventLine, readEvents, readStatus } from '../../src/index.ts';
import { acquireLock } from '../../src/state/io/lock.ts';
import { runLoopIn } from '../helpers/library-loop.ts';
import { fakeConfig, makeWorkspace } from '../helpers/workspace.ts';

async function finishedRun(): Promise<string> {
  const dir = makeWorkspace({
    'ralph.yml': fakeConfig({ max_iterations: 3 }),
    'fake-agent.yml': [
      'turns:',
      '  - do:',
      '      - run: "ralph emit work.done hello"',
      '      - result: { text: "LOOP_COMPLETE" }',
    ].join('\n'),
  });
  const result = await runLoopIn(dir, {
    prompt: 'do it',
  });
  expect(result).toMatchObject({ exitCode: 0, stopReason: 'completed' });
  return dir;
}

describe('readStatus and readEvents (library API: inspect)', () => {
  it('a finished run: its state, not running, its events in order', async () => {
    const dir = await finishedRun();
    const status = readStatus(dir);
    expect(status).toMatchObject({ running: false, crashed: false, stopRequested: false, holder: undefined });
    expect(status.state?.status).toBe('completed');
    expect(status.lastEventAt).toEqual(expect.any(Number));
    const events: EventLine[] = [];
    for await (const e of readEvents(dir)) events.push(e);
    expect(events.find((e) => e.topic === 'work.done')?.payload).toBe('hello');
  });

  it('follows the events file as it grows, and ends when the signal aborts', async () => {
    const dir = await finishedRun();
    const before: EventLine[] = [];
    for await (const e of readEvents(dir)) before.push(e);
    const file = join(dir, readStatus(dir).state?.events_file ?? '');
    const stop = new AbortController();
    const seen: EventLine[] = [];
    for await (const e of readEvents(dir, { follow: true, signal: stop.signal, intervalMs: 20 })) {
      seen.push(e);
      if (seen.length === before.length)
        appendFileSync(file, '{"topic":"later.one","payload":null,"ts":"t"}\n{"to');
      if (e.topic === 'later.one') stop.abort();
    }
    expect(seen.map((e) => e.topic)).toEqual([...before.map((e) => e.topic), 'later.one']);
  });

  it('a live holder of the lock: running, its pid, a stop not yet acted on; a dead one: crashed', async () => {
    const dir = await finishedRun();
    const paths = join(dir, '.ralph');
    const state = readStatus(dir).state;
    writeFileSync(join(paths, 'state.json'), JSON.stringify({ ...state, status: 'running' }));
    const held = acquireLock(join(paths, 'loop.lock'), state?.run_id ?? 'run');
    try {
      expect(readStatus(dir)).toMatchObject({ running: true, crashed: false, stopRequested: false });
      expect(readStatus(dir).holder?.pid).toBe(process.pid);
      sendCommand(dir, 'stop', 'cli');
      expect(readStatus(dir).stopRequested).toBe(true);
    } finally {
      held.release();
    }
    expect(readStatus(dir)).toMatchObject({ running: false, crashed: true, holder: undefined });
    writeFileSync(join(paths, 'state.json'), '{"damaged');
    expect(readStatus(dir).stateError?.message).toContain('is damaged');
  });
});
