import { readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../../../../src/state/io/file-lock.ts';
import {
  acquireLock,
  createLockFile,
  readLock,
  removeStaleLock,
  thisHolder,
} from '../../../../src/state/io/lock.ts';
import { deadPid, makeWorkspace } from '../../../helpers/workspace.ts';

// The takeover guard (state/io/takeover-guard.ts): flags `<lock>.takeover.<pid>.<hex>` beside the
// lock, one per process taking it over or releasing it.

/** A pid no process has any more (a child that already exited and was reaped). */
/** A workspace whose `loop.lock` was left by a dead process, and that process's pid. */
function staleLock(): { dir: string; lock: string; dead: number } {
  const dir = makeWorkspace();
  const dead = deadPid();
  const lock = join(dir, 'loop.lock');
  writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), started_at: new Date().toISOString() }));
  return { dir, lock, dead };
}

function flag(lock: string, holder: object, suffix = '1.0badf1a9'): string {
  const path = `${lock}.takeover.${suffix}`;
  writeFileSync(path, JSON.stringify(holder));
  return path;
}

describe('the takeover guard', () => {
  it('a guard left by a killed process does not stop a takeover, and is removed', () => {
    const { dir, lock, dead } = staleLock();
    flag(lock, { pid: dead, host: hostname(), started_at: new Date().toISOString() });
    const held = acquireLock(lock, 'run');
    expect(held.tookOver?.pid).toBe(dead);
    expect(readdirSync(dir)).toEqual(['loop.lock']);
    held.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('while a live process takes a lock over, nobody else removes it', () => {
    const { dir, lock, dead } = staleLock();
    const live = flag(lock, thisHolder());
    expect(() => acquireLock(lock, 'run')).toThrow('another loop is starting');
    expect(removeStaleLock(lock, () => true)).toBe(false);
    expect(readLock(lock)?.pid).toBe(dead);
    expect(readdirSync(dir).sort()).toEqual(['loop.lock', 'loop.lock.takeover.1.0badf1a9']);
    rmSync(live);
    expect(acquireLock(lock, 'run').tookOver?.pid).toBe(dead);
  });

  it('a flag from another host is respected while young, and removed once over a minute old', () => {
    const { dir, lock, dead } = staleLock();
    const foreign = flag(lock, { pid: 1, host: 'elsewhere.invalid', started_at: new Date().toISOString() });
    expect(() => acquireLock(lock, 'run')).toThrow('another loop is starting');
    const old = new Date(Date.now() - 61_000);
    utimesSync(foreign, old, old);
    expect(acquireLock(lock, 'run').tookOver?.pid).toBe(dead);
    expect(readdirSync(dir)).toEqual(['loop.lock']);
  });

  it('only the flags of this lock count, not its temp files nor another lock’s flags', () => {
    const { dir, lock, dead } = staleLock();
    writeFileSync(`${lock}.takeover.1.0badf1a9.1.0badf1a9.tmp`, JSON.stringify(thisHolder()));
    writeFileSync(join(dir, 'other.lock.takeover.1.0badf1a9'), JSON.stringify(thisHolder()));
    expect(acquireLock(lock, 'run').tookOver?.pid).toBe(dead);
  });

  it('a stale judgement is made again under the guard: a lock that came back alive stays', () => {
    const { lock } = staleLock();
    const fresh = { ...thisHolder(), run_id: 'fresh' };
    // Another process took it over after it was judged here, before the guard was held here.
    const removed = removeStaleLock(lock, (h) => h?.pid !== process.pid, {
      step: (at) => {
        if (at !== 'flagged') return;
        rmSync(lock);
        createLockFile(lock, fresh, 'workspace lock');
      },
    });
    expect(removed).toBe(false);
    expect(readLock(lock)).toEqual(fresh);
  });

  it('a file lock released while a dead process’s flag lies beside it is removed', () => {
    const dir = makeWorkspace();
    const data = join(dir, 'data.txt');
    flag(`${data}.lock`, { pid: deadPid(), host: hostname(), started_at: new Date().toISOString() });
    expect(withFileLock(data, () => readLock(`${data}.lock`)?.pid)).toBe(process.pid);
    expect(readdirSync(dir)).toEqual([]);
  });
});
