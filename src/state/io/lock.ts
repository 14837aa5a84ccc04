import { rmSync, statSync } from 'node:fs';
import { LockHeldError, RalphError } from '../../errors.ts';
import { trace, tracing } from '../../process/debug-trace.ts';
import {
  createLockFile,
  type LockHolder,
  type LockInfo,
  lockHolderAlive,
  readLock,
  thisHolder,
} from './lock-holder.ts';
import { sleepSync, type TakeoverHooks, withTakeoverGuard } from './takeover-guard.ts';

/**
 * The one lock core: a lock file is created whole or not at all (link), its holder is alive or not
 * (pid, host, start time; lock-holder.ts), and a stale one is removed without ever removing a fresh
 * one. Four locks are taken through its one acquire loop (acquireLockFile): the one-loop-per-workspace
 * lock below, withFileLock (file-lock.ts), task claims (parallel-claims.ts) and the Telegram poller
 * lock (human/telegram/bot-state.ts).
 *
 * Why a fresh lock is never removed, under any interleaving of any number of racers:
 * 1. A lock is removed only while holding its takeover guard (takeovers and releases alike; the
 *    one exception, a parallel run's coordinator replacing or releasing its own task claims, has
 *    no rival: it is the only claimer in its workspace, coordinator.lock);
 *    creating one needs no guard (a link succeeds only where no lock is). So while a process holds
 *    the guard, the lock can only go from absent to present: a present lock cannot be removed by
 *    anyone else, nor anything created over it. The guard holder re-reads and re-judges the lock:
 *    the lock it judged is the lock it removes, whether judged stale by a dead holder or by age
 *    (whose live holder's release waits for the guard).
 * 2. The guard is exclusive. Each contender creates its own flag `<path>.takeover.<pid>.<hex>`
 *    (created whole), then lists the directory, and holds the guard only if it saw no other live
 *    process's flag; its flag stays until it is done. Were A and B to hold it at once, with A's flag
 *    created first: A's flag existed before B listed and until A was done, after B's listing, and
 *    a listing returns every entry present throughout it, so B saw A's flag of a live process.
 * 3. Removing a flag left behind is safe: its holder is dead (same host: pid and start time) and
 *    its name is that process's alone, so no live holder's flag is removed, and removing it twice
 *    is harmless. The one assumption: a flag of another host's process (which cannot be judged)
 *    older than a minute was left by a killed process, as a guard is held for a few file operations.
 *    A process killed holding the guard left the lock removed or not — one step, never half-done.
 * Two contenders may both see the other's flag and both back off: then nobody holds the guard this
 * time, and each caller waits or gives up as it would on a live lock.
 */

export {
  createLockFile,
  type LockHolder,
  type LockInfo,
  lockHolderAlive,
  readLock,
  sleepSync,
  type TakeoverHooks,
  thisHolder,
};

/** A release waits this long for another process's takeover to end, then leaves the lock. */
const RELEASE_WAIT_MS = 2000;

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
 * by a dead process is taken over. `me`: this process as another lock of the same holder names it.
 */
export function acquireLock(path: string, runId: string, me = thisHolder()): HeldLock {
  const info: LockInfo = { ...me, run_id: runId };
  const taken = acquireLockFile<LockInfo>(path, {
    content: info,
    what: 'workspace lock',
    // Dead, or unreadable (a workspace lock is never half-written): removed, then taken anew.
    stale: (h) => h === undefined || !lockHolderAlive(h),
  });
  if (taken.held) return makeHeld(path, info, taken.tookOver);
  if (taken.busy && taken.holder) throw new LockHeldError(taken.holder.pid, taken.holder.host, path);
  throw new RalphError('lock_failed', `could not take the workspace lock ${path}; another loop is starting`);
}

/** How {@link acquireLockFile} takes a lock: its content, when a present one is stale, how long to wait. */
export interface AcquireOptions<T extends LockHolder> {
  content: T;
  /** The lock as an error names it (`workspace lock`, `task claim`). */
  what: string;
  /** Whether a present lock may be removed: its holder (undefined: unreadable) and age; judged again under the guard. */
  stale: (holder: T | undefined, ageMs: number) => boolean;
  /** A lock that already names this holder (its own earlier content): held, nothing taken over. */
  ours?: ((holder: T) => boolean) | undefined;
  /** Stale or vanished locks retried at once before waiting or giving up (default 5). */
  attempts?: number | undefined;
  /** How long a live holder is waited for, retrying with backoff (default 0: not at all). */
  waitMs?: number | undefined;
  /** Called once when the wait goes past `noticeMs` (default 0), with the holder when readable. */
  onWait?: ((holder: T | undefined) => void) | undefined;
  noticeMs?: number | undefined;
  hooks?: TakeoverHooks | undefined;
}

/** A lock taken (and the stale holder it replaced), or not: `busy` when a holder judged live has it. */
export type Acquired<T extends LockHolder> =
  | { held: true; created: boolean; tookOver: T | undefined }
  | { held: false; busy: boolean; holder: T | undefined };

/**
 * The one acquire loop of the lock core, under the workspace lock, file locks, task claims and the
 * Telegram poller lock: create the lock whole; else judge the one there — ours, stale (removed under
 * the takeover guard, then created anew) or held (waited for with jittered backoff until `waitMs`).
 * Synchronous, as the lock core is (it runs inside synchronous writes): the deadline bounds it.
 */
export function acquireLockFile<T extends LockHolder>(path: string, o: AcquireOptions<T>): Acquired<T> {
  const deadline = Date.now() + (o.waitMs ?? 0);
  const noticeAt = Date.now() + (o.noticeMs ?? 0);
  const attempts = o.attempts ?? 5;
  let onWait = o.onWait;
  let tookOver: T | undefined;
  let retries = 0;
  let delay = 2;
  for (;;) {
    if (createLockFile(path, o.content, o.what)) return traced(path, { held: true, created: true, tookOver });
    const seen = judge<T>(path, o.stale);
    if (seen.holder && o.ours?.(seen.holder)) return traced(path, { held: true, created: false, tookOver });
    if (seen.kind !== 'held') {
      const removed = seen.kind === 'gone' || removeStaleLock(path, o.stale, o.hooks);
      if (removed && seen.kind === 'stale') tookOver = seen.holder;
      // Another racer's takeover is waited out like a live holder when waiting; else retried at once.
      if ((removed || o.waitMs === undefined || o.waitMs <= 0) && ++retries < attempts) continue;
    }
    if (onWait && Date.now() >= noticeAt) {
      onWait(seen.holder);
      onWait = undefined;
    }
    if (Date.now() >= deadline)
      return traced(path, { held: false, busy: seen.kind === 'held', holder: seen.holder });
    // Jitter keeps a crowd of waiters from retrying in lockstep.
    sleepSync(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}

/** The outcome of an acquire, in the debug trace when it is on. */
function traced<T extends LockHolder>(path: string, got: Acquired<T>): Acquired<T> {
  if (tracing()) trace({ kind: 'lock', path, outcome: got.held ? 'acquired' : 'held' });
  return got;
}

/**
 * Removes the lock at `path` if `stale` says so of its holder (undefined: unreadable) and its age,
 * judged once and again under the takeover guard. True when the caller should retry at once
 * (removed, or already gone); false while the lock is not stale or another process is taking it over.
 */
export function removeStaleLock<T extends LockHolder = LockHolder>(
  path: string,
  stale: (holder: T | undefined, ageMs: number) => boolean,
  hooks: TakeoverHooks = {},
): boolean {
  const judged = judge<T>(path, stale).kind;
  if (judged !== 'stale') return judged === 'gone';
  const removed = withTakeoverGuard(
    path,
    () => {
      const again = judge<T>(path, stale).kind;
      if (again !== 'stale') return again === 'gone';
      hooks.step?.('judged');
      rmSync(path, { force: true });
      return true;
    },
    hooks,
  );
  return removed?.value ?? false;
}

/** A present lock judged once: gone meanwhile, stale (`stale` says so), or held; and its holder. */
function judge<T extends LockHolder>(
  path: string,
  stale: (holder: T | undefined, ageMs: number) => boolean,
): { kind: 'gone' | 'stale' | 'held'; holder: T | undefined } {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return { kind: 'gone', holder: undefined }; // released meanwhile
  }
  const holder = readLock<T>(path);
  return { kind: stale(holder, Date.now() - mtimeMs) ? 'stale' : 'held', holder };
}

/**
 * Removes the lock only if `ours` recognises its content (it may have been taken over as stale),
 * under the takeover guard. Left in place if another process's takeover does not end within
 * RELEASE_WAIT_MS: it is then judged like any lock whose holder is gone, and no other is removed.
 */
export function releaseLockFile<T extends LockHolder>(path: string, ours: (holder: T) => boolean): void {
  const deadline = Date.now() + RELEASE_WAIT_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 20)) {
    const current = readLock<T>(path);
    if (!current || !ours(current)) return;
    const done = withTakeoverGuard(path, () => {
      const now = readLock<T>(path);
      if (now && ours(now)) rmSync(path, { force: true });
    });
    if (done || Date.now() >= deadline) return;
    sleepSync(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
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
      releaseLockFile<LockInfo>(path, (c) => c.pid === info.pid && c.started_at === info.started_at);
    },
  };
}
