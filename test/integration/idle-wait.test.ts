import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type IdleWaitOptions, type WakeReason, waitWhileIdle } from '../../src/engine/run/idle-wait.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// "Nothing happened for ten minutes" on the fake clock, in milliseconds of real time: the idle wait's
// timers (the cooldown heartbeat, the events/inbox poll's injected sleep) are vitest's fake timers;
// file changes are real.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const TEN_MINUTES = 600_000;

function idleWorkspace(): IdleWaitOptions {
  const ws = makeWorkspace({
    'inbox/.keep': '',
    '.ralph/events.jsonl': '',
    '.ralph/control/inbox.jsonl': '',
  });
  return {
    workspace: ws,
    watch: ['inbox'],
    eventsFile: join(ws, '.ralph', 'events.jsonl'),
    eventsOffset: 0,
    cooldownMs: 0,
    maxWaitMs: 24 * 3_600_000,
    signal: undefined,
    inbox: join(ws, '.ralph', 'control', 'inbox.jsonl'),
    inboxOffset: 0,
    sleep: fakeClockSleep,
  };
}

/** The poll's pause on vitest's fake clock (node:timers/promises is not faked). */
function fakeClockSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // As node:timers/promises does: the abort listener goes when the pause ends, so a long wait's
    // many pauses do not pile listeners on the run's one signal.
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wait, and what it woke for so far (undefined while it still waits). */
function start(o: IdleWaitOptions): { woke: () => WakeReason | undefined; done: Promise<WakeReason> } {
  let reason: WakeReason | undefined;
  const done = waitWhileIdle(o).then((r) => {
    reason = r;
    return r;
  });
  return { woke: () => reason, done };
}

describe('the persistent idle wait, on the fake clock', () => {
  it('watching with no heartbeat: no wake in ten minutes of silence, then a change to a watched path wakes it', async () => {
    // A pattern from the workspace root: Ralph's own writes under .ralph/ match it and are still no change.
    const o = { ...idleWorkspace(), watch: ['inbox', '**/*.md'] };
    const wait = start(o);
    await vi.advanceTimersByTimeAsync(TEN_MINUTES);
    expect(wait.woke()).toBeUndefined();
    mkdirSync(join(o.workspace, '.ralph', 'agent'), { recursive: true });
    writeFileSync(join(o.workspace, '.ralph', 'agent', 'scratchpad.md'), 'x');
    await vi.advanceTimersByTimeAsync(TEN_MINUTES);
    expect(wait.woke()).toBeUndefined();
    writeFileSync(join(o.workspace, 'inbox', 'job-1.txt'), 'do it');
    expect(await wait.done).toBe('changed');
  });

  it('the cooldown heartbeat wakes it at the cooldown, not a millisecond before', async () => {
    const wait = start({ ...idleWorkspace(), cooldownMs: 60_000 });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(wait.woke()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(await wait.done).toBe('cooldown');
  });

  it('an appended event or control command wakes it at the next poll; the runtime limit caps the wait', async () => {
    const o = idleWorkspace();
    const byEvent = start(o);
    await vi.advanceTimersByTimeAsync(TEN_MINUTES);
    expect(byEvent.woke()).toBeUndefined();
    appendFileSync(o.eventsFile, '{"topic":"item.do","payload":null}\n');
    await vi.advanceTimersByTimeAsync(250);
    expect(byEvent.woke()).toBe('event');

    const quiet = idleWorkspace();
    const byControl = start(quiet);
    appendFileSync(quiet.inbox, '{"id":"c1","kind":"stop"}\n');
    await vi.advanceTimersByTimeAsync(250);
    expect(byControl.woke()).toBe('control');

    const capped = start({ ...idleWorkspace(), maxWaitMs: 5 * 60_000 });
    await vi.advanceTimersByTimeAsync(5 * 60_000 - 1);
    expect(capped.woke()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(await capped.done).toBe('runtime');
  });
});
