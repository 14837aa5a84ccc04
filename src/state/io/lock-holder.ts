import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { errnoInWords, RalphError } from '../../errors.ts';
import { isPidAlive, ownStartTime, processStartedAtMs, sameProcessStart } from '../../process/pids.ts';

/**
 * A lock file of the lock core (lock.ts): created whole or not at all, naming its holder, who is
 * alive or not (pid, host, start time).
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

/** The temp file goes; a directory that is not one (the error above says so) must not mask it. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // nothing was created there
  }
}
