import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { errnoInWords, LockHeldError, RalphError } from '../../errors.ts';
import { isPidAlive, ownStartTime, processStartedAtMs, sameProcessStart } from '../../process/pids.ts';

/**
 * The one lock core: a lock file is created whole or not at all (link), its holder is alive or not
 * (pid, host, start time), and a stale one is moved aside without ever removing a fresh one. Two
 * locks are built on it: the one-loop-per-workspace lock below, and withFileLock (file-lock.ts).
 */

/** Who holds a lock: every lock file names at least its pid and host. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When it was taken (ISO 8601). */
  started_at?: string | undefined;
  /** The holder's start time (from the process table): tells a live holder from an unrelated process that reused its pid. */
  start_time?: string | undefined;
}

/** Content of `.ralph/loop.lock`. */
export interface LockInfo extends LockHolder {
  started_at: string;
  run_id?: string;
}

/** A lock file's content when it names a holder (a pid, at least); undefined when missing or unreadable. */
export function readLock<T extends LockHolder = LockInfo>(path: string): T | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as T;
    return typeof info?.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

/** This process as a lock's holder. */
export function thisHolder(): LockHolder & { started_at: string } {
  const startTime = ownStartTime();
  return {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    ...(startTime === undefined ? {} : { start_time: startTime }),
  };
}

/** True when the lock's holder is a live process (on another host we cannot tell, so assume it is). */
export function lockHolderAlive(info: LockHolder): boolean {
  if (info.host !== hostname()) return true;
  if (!isPidAlive(info.pid)) return false;
  if (info.start_time !== undefined) {
    // Undefined (gone meanwhile, or recorded by another process table): assume it is the holder.
    return sameProcessStart(info.start_time, info.pid) !== false;
  }
  // A lock without a start time (written elsewhere, or by an older Ralph): a process that started
  // after the lock was taken cannot be its holder — the pid was reused.
  const started = processStartedAtMs(info.pid);
  const taken = Date.parse(info.started_at ?? '');
  return started === undefined || Number.isNaN(taken) || started <= taken + 2000;
}

/** The lock's holder while it is a live process; undefined when no lock or its holder is gone. */
export function liveHolder(path: string): LockInfo | undefined {
  const holder = readLock(path);
  return holder && lockHolderAlive(holder) ? holder : undefined;
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
  const info: LockInfo = { ...thisHolder(), run_id: runId };
  let tookOver: LockInfo | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createLockFile(path, info, 'workspace lock')) return makeHeld(path, info, tookOver);
    const holder = readLock(path);
    if (holder && lockHolderAlive(holder)) throw new LockHeldError(holder.pid, holder.host, path);
    // Stale (or unreadable: a workspace lock is never half-written): moved aside, then taken anew.
    tookOver = holder;
    removeStaleLock(path, (h) => h === undefined || !lockHolderAlive(h));
  }
  throw new RalphError('lock_failed', `could not take the workspace lock ${path}; another loop is starting`);
}

/**
 * Creates the lock file with its whole content or not at all: written to a private temp file, then
 * hard-linked into place (link fails if the lock exists), so another Ralph never reads a
 * half-written lock and mistakes a starting holder for a dead one. False when the lock exists.
 */
export function createLockFile(path: string, content: LockHolder, what: string): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(content)}\n`, { flag: 'wx' });
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // The lock's own path and directory, not the private temp file the error names.
    const e = error as NodeJS.ErrnoException;
    const why = errnoInWords(e) ?? e.message;
    throw new RalphError(
      'lock_failed',
      `cannot create the ${what} ${path}: ${why} — check that ${dirname(path)} is writable by you`,
      { cause: error },
    );
  } finally {
    removeQuietly(tmp);
  }
}

/**
 * Removes the lock at `path` if `stale` says so of its holder (undefined: unreadable) and its age.
 * The lock is moved aside (atomic) and checked to be the one judged, not a fresh lock another
 * waiter made after taking it over first; that one is put back. True when the caller should retry
 * at once (removed, or already gone).
 */
export function removeStaleLock(
  path: string,
  stale: (holder: LockHolder | undefined, ageMs: number) => boolean,
): boolean {
  let seen: { ino: number; mtimeMs: number };
  let text: string;
  try {
    seen = statSync(path);
    text = readFileSync(path, 'utf8');
  } catch {
    return true; // released meanwhile
  }
  if (!stale(readLock<LockHolder>(path), Date.now() - seen.mtimeMs)) return false;
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return true;
  }
  let same = false;
  try {
    const now = statSync(aside);
    same = now.ino === seen.ino && now.mtimeMs === seen.mtimeMs && readFileSync(aside, 'utf8') === text;
  } catch {
    return true;
  }
  if (!same) {
    try {
      linkSync(aside, path); // fails if yet another lock appeared: never clobber one
    } catch {
      // The caller's retry waits on whatever lock exists now.
    }
  }
  rmSync(aside, { force: true });
  return same;
}

/** Removes the lock only if `ours` recognises its content (it may have been taken over as stale). */
export function releaseLockFile<T extends LockHolder>(path: string, ours: (holder: T) => boolean): void {
  const current = readLock<T>(path);
  if (current && ours(current)) rmSync(path, { force: true });
}

function makeHeld(path: string, info: LockInfo, tookOver: LockInfo | undefined): HeldLock {
  let released = false;
  return {
    info,
    tookOver,
    release() {
      if (released) return;
      released = true;
      releaseLockFile<LockInfo>(path, (c) => c.pid === info.pid && c.started_at === info.started_at);
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
