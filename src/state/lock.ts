import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { errnoInWords, LockHeldError, RalphError } from '../errors.ts';
import { isPidAlive, processStartedAtMs, readProcStat } from '../process/pids.ts';
import { writeJsonAtomicSync } from './atomic-write.ts';

/** Content of `.ralph/loop.lock`. */
export interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
  run_id?: string;
  /** The holder's /proc start time: tells a live holder from an unrelated process that reused its pid. */
  start_time?: string;
}

export function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

/** True when the lock's holder is a live process (on another host we cannot tell, so assume it is). */
export function lockHolderAlive(info: LockInfo): boolean {
  if (info.host !== hostname()) return true;
  if (!isPidAlive(info.pid)) return false;
  if (info.start_time !== undefined) {
    const now = readProcStat(info.pid)?.startTime;
    return now === undefined || now === info.start_time;
  }
  // A lock without a start time (written elsewhere, or by an older Ralph): a process that started
  // after the lock was taken cannot be its holder — the pid was reused.
  const started = processStartedAtMs(info.pid);
  const taken = Date.parse(info.started_at);
  return started === undefined || Number.isNaN(taken) || started <= taken + 2000;
}

/** A held workspace lock; `release()` is idempotent and only removes the lock if it is still ours. */
export interface HeldLock {
  info: LockInfo;
  /** True when a lock left by a dead process was taken over. */
  tookOver: LockInfo | undefined;
  release(): void;
}

/**
 * Takes the one-loop-per-workspace lock. A live holder → LockHeldError naming its pid; a lock left
 * by a dead process is taken over.
 */
export function acquireLock(path: string, runId: string): HeldLock {
  const startTime = readProcStat(process.pid)?.startTime;
  const info: LockInfo = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    run_id: runId,
    ...(startTime === undefined ? {} : { start_time: startTime }),
  };
  let tookOver: LockInfo | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createComplete(path, info)) return makeHeld(path, info, tookOver);
    const holder = readLock(path);
    if (holder && lockHolderAlive(holder)) throw new LockHeldError(holder.pid, holder.host, path);
    // Stale (or unreadable, half-written) lock: replace it atomically, then confirm we won any race.
    tookOver = holder;
    writeJsonAtomicSync(path, info);
    const now = readLock(path);
    if (now && now.pid === info.pid && now.started_at === info.started_at)
      return makeHeld(path, info, tookOver);
  }
  throw new RalphError('lock_failed', `could not take the workspace lock ${path}; another loop is starting`);
}

/**
 * Creates the lock file with its whole content or not at all: written to a private temp file, then
 * hard-linked into place (link fails if the lock exists), so another Ralph never reads a
 * half-written lock and mistakes a starting holder for a dead one. False when the lock exists.
 */
function createComplete(path: string, info: LockInfo): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(info)}\n`, { flag: 'wx' });
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // The lock's own path and directory, not the private temp file the error names.
    const e = error as NodeJS.ErrnoException;
    const why = errnoInWords(e) ?? e.message;
    throw new RalphError(
      'lock_failed',
      `cannot create the workspace lock ${path}: ${why} — check that ${dirname(path)} is writable by you`,
      { cause: error },
    );
  } finally {
    removeQuietly(tmp);
  }
}

function makeHeld(path: string, info: LockInfo, tookOver: LockInfo | undefined): HeldLock {
  let released = false;
  return {
    info,
    tookOver,
    release() {
      if (released) return;
      released = true;
      const current = readLock(path);
      if (current && current.pid === info.pid && current.started_at === info.started_at)
        rmSync(path, { force: true });
    },
  };
}

/** The temp file goes; a directory that is not one (the error above says so) must not mask it. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // nothing was created there
  }
}
