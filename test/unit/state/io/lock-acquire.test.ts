import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acquireLockFile,
  createLockFile,
  type LockHolder,
  readLock,
  thisHolder,
} from '../../../../src/state/io/lock.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

// The one acquire loop of the lock core (state/io/lock.ts), under the workspace lock, file locks,
// task claims and the Telegram poller lock.

const other: LockHolder = { pid: process.pid, host: 'other', started_at: '2026-01-01T00:00:00Z' };
const me = { ...thisHolder(), started_at: '2026-02-02T00:00:00Z' };

function heldBy(holder: LockHolder): string {
  const lock = join(makeWorkspace(), 'x.lock');
  expect(createLockFile(lock, holder, 'test lock')).toBe(true);
  return lock;
}

describe('acquireLockFile', () => {
  it('creates a free lock whole', () => {
    const lock = join(makeWorkspace(), 'x.lock');
    expect(acquireLockFile(lock, { content: me, what: 'test lock', stale: () => false })).toEqual({
      held: true,
      created: true,
      tookOver: undefined,
    });
    expect(readLock(lock)).toEqual(me);
  });

  it('gives up at once on a live holder when it may not wait, naming the holder', () => {
    const lock = heldBy(other);
    const started = Date.now();
    expect(acquireLockFile(lock, { content: me, what: 'test lock', stale: () => false })).toEqual({
      held: false,
      busy: true,
      holder: other,
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a lock that already names this holder is held without taking anything over', () => {
    const lock = heldBy(me);
    const ours = (h: LockHolder) => h.started_at === me.started_at;
    expect(acquireLockFile(lock, { content: me, what: 'test lock', stale: () => false, ours })).toEqual({
      held: true,
      created: false,
      tookOver: undefined,
    });
  });

  it('waits with backoff until the holder is stale, says once why it waits, then takes it over', () => {
    const lock = heldBy(other);
    const waits: (LockHolder | undefined)[] = [];
    const taken = acquireLockFile(lock, {
      content: me,
      what: 'test lock',
      stale: (_h, ageMs) => ageMs > 150,
      waitMs: 5000,
      onWait: (h) => waits.push(h),
    });
    expect(taken).toEqual({ held: true, created: true, tookOver: other });
    expect(waits).toEqual([other]);
    expect(readLock(lock)).toEqual(me);
    expect(readdirSync(join(lock, '..'))).toEqual(['x.lock']);
  });

  it('stops waiting at its deadline and leaves the holder’s lock', () => {
    const lock = heldBy(other);
    const started = Date.now();
    const taken = acquireLockFile(lock, { content: me, what: 'test lock', stale: () => false, waitMs: 200 });
    expect(taken).toEqual({ held: false, busy: true, holder: other });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(readLock(lock)).toEqual(other);
  });

  it('a stale lock it cannot remove (another process is taking it over) is retried, then given up: not busy', () => {
    const lock = heldBy(other);
    // A live process's takeover flag beside the lock: nobody else may remove the lock meanwhile.
    expect(createLockFile(`${lock}.takeover.${process.pid}.0badf1a9`, thisHolder(), 'flag')).toBe(true);
    expect(acquireLockFile(lock, { content: me, what: 'test lock', stale: () => true, attempts: 3 })).toEqual(
      {
        held: false,
        busy: false,
        holder: other,
      },
    );
    expect(readLock(lock)).toEqual(other);
  });
});
