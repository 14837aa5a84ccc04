import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { RalphError } from '../../errors.ts';
import {
  createLockFile,
  type LockHolder,
  lockHolderAlive,
  readLock,
  releaseLockFile,
  removeStaleLock,
  sleepSync,
  thisHolder,
} from './lock.ts';

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

/** A file lock's content: its holder and a token that tells our lock from a later one. */
interface LockContent extends LockHolder {
  token: string;
}

// Paths this process holds: a nested withFileLock on the same file runs inline instead of deadlocking.
const held = new Set<string>();
// A lock with no readable content is being written right now, unless it has been empty this long.
const UNREADABLE_GRACE_MS = 2000;
// A wait shorter than this goes unannounced (see FileLockOptions.onWait).
const WAIT_NOTICE_MS = 250;

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
  const content: LockContent = { ...thisHolder(), token: randomBytes(8).toString('hex') };
  const deadline = Date.now() + timeoutMs;
  const announceAt = Date.now() + WAIT_NOTICE_MS;
  let delay = 2;
  for (;;) {
    if (createLockFile(lockPath, content, 'lock')) return content.token;
    // Stale: too old, unreadable past its grace (a lock from an older Ralph, written in two steps),
    // or its holder is dead.
    const stale = (holder: LockHolder | undefined, ageMs: number) =>
      ageMs > staleMs || (holder === undefined ? ageMs > UNREADABLE_GRACE_MS : !lockHolderAlive(holder));
    if (removeStaleLock(lockPath, stale)) continue;
    if (onWait && Date.now() >= announceAt) {
      const holder = readLock<LockContent>(lockPath);
      onWait(holder && { pid: holder.pid, host: holder.host });
      onWait = undefined;
    }
    if (Date.now() >= deadline) {
      const holder = readLock<LockContent>(lockPath);
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

function release(lockPath: string, token: string): void {
  releaseLockFile<LockContent>(lockPath, (c) => c.token === token);
}
