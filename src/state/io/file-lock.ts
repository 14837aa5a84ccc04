import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { RalphError } from '../../errors.ts';
import {
  acquireLockFile,
  type LockHolder,
  lockHolderAlive,
  readLock,
  releaseLockFile,
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
  const taken = acquireLockFile<LockContent>(lockPath, {
    content,
    what: 'lock',
    // Stale: too old, unreadable past its grace (a lock from an older Ralph, written in two steps),
    // or its holder is dead.
    stale: (holder, ageMs) =>
      ageMs > staleMs || (holder === undefined ? ageMs > UNREADABLE_GRACE_MS : !lockHolderAlive(holder)),
    waitMs: timeoutMs,
    noticeMs: WAIT_NOTICE_MS,
    onWait: onWait && ((holder) => onWait(holder && { pid: holder.pid, host: holder.host })),
  });
  if (taken.held) return content.token;
  const holder = readLock<LockContent>(lockPath);
  throw new RalphError(
    'lock_held',
    `timed out after ${timeoutMs / 1000} s waiting for ${lockPath}` +
      (holder ? ` (held by pid ${holder.pid} on ${holder.host})` : '') +
      '; retry, or delete the lock file if no ralph process is using it',
  );
}

function release(lockPath: string, token: string): void {
  releaseLockFile<LockContent>(lockPath, (c) => c.token === token);
}
