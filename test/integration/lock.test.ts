import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LockHeldError } from '../../src/errors.ts';
import { acquireLock, readLock } from '../../src/state/lock.ts';
import { cleanupWorkspaces, makeWorkspace } from '../helpers/workspace.ts';

afterAll(cleanupWorkspaces);

describe('workspace lock', () => {
  it('refuses a second holder while the first lives, naming its pid', () => {
    const file = join(makeWorkspace(), 'loop.lock');
    const held = acquireLock(file, 'run-a');
    expect(() => acquireLock(file, 'run-b')).toThrow(LockHeldError);
    expect(() => acquireLock(file, 'run-b')).toThrow(`pid ${process.pid}`);
    held.release();
    expect(existsSync(file)).toBe(false);
    acquireLock(file, 'run-c').release();
  });

  it('takes over a lock whose holder is dead, and a half-written one', () => {
    const dir = makeWorkspace();
    const file = join(dir, 'loop.lock');
    const deadPid = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
    );
    writeFileSync(file, JSON.stringify({ pid: deadPid, host: hostname(), started_at: 'x' }));
    const held = acquireLock(file, 'run');
    expect(held.tookOver?.pid).toBe(deadPid);
    expect(readLock(file)?.pid).toBe(process.pid);
    held.release();
    writeFileSync(file, '{"pid": 12');
    const again = acquireLock(file, 'run');
    expect(readLock(file)?.pid).toBe(process.pid);
    again.release();
  });

  it('treats a lock whose pid now belongs to another process as stale', () => {
    const file = join(makeWorkspace(), 'loop.lock');
    // Our own pid, but a start time that is not ours: the holder died and the pid was reused.
    writeFileSync(
      file,
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: 'x', start_time: '1' }),
    );
    const held = acquireLock(file, 'run');
    expect(held.tookOver?.start_time).toBe('1');
    held.release();
  });

  it('release does not remove a lock that now belongs to someone else', () => {
    const file = join(makeWorkspace(), 'loop.lock');
    const held = acquireLock(file, 'run');
    writeFileSync(file, JSON.stringify({ pid: 1, host: hostname(), started_at: 'other' }));
    held.release();
    expect(readLock(file)?.pid).toBe(1);
  });
});
