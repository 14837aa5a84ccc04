import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { RalphError } from '../errors.ts';
import { isPidAlive } from '../process/pids.ts';

/** Tuning for `withFileLock`; the defaults suit tiny files rewritten in a few milliseconds. */
export interface FileLockOptions {
  /** Give up after waiting this long for another holder (default 5000 ms). */
  timeoutMs?: number;
  /** A lock older than this is taken over even if its holder lives (default 30000 ms). */
  staleMs?: number;
  /**
   * Called once when the wait for another holder goes past a moment (a quarter second: the usual
   * brief contention stays quiet), with the holder when readable, to say why we wait.
   */
  onWait?: ((holder: { pid: number; host: string } | undefined) => void) | undefined;
}

interface LockContent {
  pid: number;
  host: string;
  token: string;
}

// Paths this process holds: a nested withFileLock on the same file runs inline instead of deadlocking.
const held = new Set<string>();
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
// A lock with no readable content is being written right now, unless it has been empty this long.
const UNREADABLE_GRACE_MS = 2000;
// A wait shorter than this goes unannounced (see FileLockOptions.onWait).
const WAIT_NOTICE_MS = 250;

function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/**
 * Runs `fn` while holding `path + '.lock'`, a cross-process mutex for one read-modify-write of
 * `path`. Waits up to `timeoutMs` for another holder; a lock whose pid is dead (same host) or that
 * is older than `staleMs` is taken over.
 */
export function withFileLock<T>(path: string, fn: () => T, options: FileLockOptions = {}): T {
  const lockPath = `${path}.lock`;
  if (held.has(lockPath)) return fn();
  const token = acquire(lockPath, options.timeoutMs ?? 5000, options.staleMs ?? 30_000, options.onWait);
  held.add(lockPath);
  try {
    return fn();
  } finally {
    held.delete(lockPath);
    release(lockPath, token);
  }
}

function acquire(
  lockPath: string,
  timeoutMs: number,
  staleMs: number,
  onWait: FileLockOptions['onWait'],
): string {
  mkdirSync(dirname(lockPath), { recursive: true });
  const token = `${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2, 10)}`;
  const content: LockContent = { pid: process.pid, host: hostname(), token };
  const deadline = Date.now() + timeoutMs;
  const announceAt = Date.now() + WAIT_NOTICE_MS;
  let delay = 2;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx');
      try {
        writeSync(fd, JSON.stringify(content));
      } finally {
        closeSync(fd);
      }
      return token;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new RalphError('lock_failed', `cannot create ${lockPath}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    if (takeOverIfStale(lockPath, staleMs)) continue;
    if (onWait && Date.now() >= announceAt) {
      const holder = readLockContent(lockPath);
      onWait(holder && { pid: holder.pid, host: holder.host });
      onWait = undefined;
    }
    if (Date.now() >= deadline) {
      const holder = readLockContent(lockPath);
      throw new RalphError(
        'lock_held',
        `timed out after ${timeoutMs / 1000} s waiting for ${lockPath}` +
          (holder ? ` (held by pid ${holder.pid} on ${holder.host})` : '') +
          '; retry, or delete the lock file if no ralph process is using it',
      );
    }
    // Jitter keeps a crowd of waiters from retrying in lockstep.
    sleepSync(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}

function readLockContent(lockPath: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<LockContent>;
    if (typeof parsed.pid !== 'number' || typeof parsed.token !== 'string') return undefined;
    return { pid: parsed.pid, host: String(parsed.host ?? ''), token: parsed.token };
  } catch {
    return undefined;
  }
}

/** Removes a stale lock; true when the caller should retry at once. */
function takeOverIfStale(lockPath: string, staleMs: number): boolean {
  let seen: { ino: number; mtimeMs: number };
  try {
    seen = statSync(lockPath);
  } catch {
    return true; // released between our open and stat
  }
  const ageMs = Date.now() - seen.mtimeMs;
  const holder = readLockContent(lockPath);
  const stale =
    ageMs > staleMs ||
    (holder === undefined && ageMs > UNREADABLE_GRACE_MS) ||
    (holder !== undefined && holder.host === hostname() && !isPidAlive(holder.pid));
  if (!stale) return false;
  // Move the lock aside (atomic), then check we moved the stale one and not a fresh lock that
  // another waiter created after taking it over first; if we did, put that one back.
  const aside = `${lockPath}.stale-${process.pid}-${Math.random().toString(16).slice(2, 10)}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return true;
  }
  let same = false;
  try {
    const now = statSync(aside);
    same =
      now.ino === seen.ino && now.mtimeMs === seen.mtimeMs && readLockContent(aside)?.token === holder?.token;
  } catch {
    return true;
  }
  if (!same) {
    try {
      linkSync(aside, lockPath); // fails if yet another lock appeared: never clobber one
    } catch {
      // The retry loop waits on whatever lock exists now.
    }
  }
  rmSync(aside, { force: true });
  return same;
}

function release(lockPath: string, token: string): void {
  // Only remove the lock if it is still ours (it may have been taken over as stale).
  if (readLockContent(lockPath)?.token === token) rmSync(lockPath, { force: true });
}
