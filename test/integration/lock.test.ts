import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockHeldError } from '../../src/errors.ts';
import { withFileLock } from '../../src/state/io/file-lock.ts';
import { acquireLock, readLock } from '../../src/state/io/lock.ts';
import { NOT_ITS_START_TIME } from '../helpers/start-time.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

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
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: 'x', start_time: NOT_ITS_START_TIME }),
    );
    const held = acquireLock(file, 'run');
    expect(held.tookOver?.start_time).toBe(NOT_ITS_START_TIME);
    held.release();
  });

  it('a lock without a start time: stale when its pid now belongs to a process started after it', () => {
    const file = join(makeWorkspace(), 'loop.lock');
    // Our pid, but the lock was taken years before this process started.
    writeFileSync(
      file,
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: '2001-01-01T00:00:00Z' }),
    );
    const held = acquireLock(file, 'run');
    expect(held.tookOver?.started_at).toBe('2001-01-01T00:00:00Z');
    held.release();
    // Taken after this process started: this process may well be its holder.
    writeFileSync(
      file,
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() }),
    );
    expect(() => acquireLock(file, 'run')).toThrow(LockHeldError);
  });

  it('a lock that cannot be created names the lock and its directory, not a temp file', () => {
    const notADir = join(makeWorkspace(), 'file');
    writeFileSync(notADir, 'x');
    const lock = join(notADir, 'loop.lock');
    expect(() => acquireLock(lock, 'run')).toThrow(
      `cannot create the workspace lock ${lock}: not a directory (ENOTDIR) — check that ${notADir} is writable by you`,
    );
  });

  it('release does not remove a lock that now belongs to someone else', () => {
    const file = join(makeWorkspace(), 'loop.lock');
    const held = acquireLock(file, 'run');
    writeFileSync(file, JSON.stringify({ pid: 1, host: hostname(), started_at: 'other' }));
    held.release();
    expect(readLock(file)?.pid).toBe(1);
  });
});

describe('one lock core for the workspace lock and withFileLock', () => {
  it('a file lock whose pid now belongs to another process is stale, as a workspace lock is', () => {
    const file = join(makeWorkspace(), 'data.txt');
    // Our own pid, but a start time that is not ours: its holder died and the pid was reused.
    const reused = {
      pid: process.pid,
      host: hostname(),
      started_at: 'x',
      start_time: NOT_ITS_START_TIME,
      token: 't',
    };
    writeFileSync(`${file}.lock`, JSON.stringify(reused));
    expect(withFileLock(file, () => 'ran', { timeoutMs: 300 })).toBe('ran');
    expect(existsSync(`${file}.lock`)).toBe(false);
    writeFileSync(join(file, '..', 'loop.lock'), JSON.stringify(reused));
    const held = acquireLock(join(file, '..', 'loop.lock'), 'run');
    expect(held.tookOver?.start_time).toBe(NOT_ITS_START_TIME);
    held.release();
  });

  it('both write a lock whole, naming the holder and its start time', () => {
    const dir = makeWorkspace();
    const seen = withFileLock(join(dir, 'data.txt'), () => readLock(join(dir, 'data.txt.lock')));
    const held = acquireLock(join(dir, 'loop.lock'), 'run');
    try {
      for (const info of [seen, held.info])
        expect(info).toMatchObject({ pid: process.pid, host: hostname(), started_at: expect.any(String) });
    } finally {
      held.release();
    }
  });
});
