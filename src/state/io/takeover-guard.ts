import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createLockFile, type LockHolder, lockHolderAlive, readLock, thisHolder } from './lock-holder.ts';

/**
 * The takeover guard of a lock: who may remove the lock file right now. See lock.ts for why it is
 * built this way and why it is safe.
 */

/** Steps of a takeover or release, announced so a test can run other racers exactly there. */
export interface TakeoverHooks {
  step?: ((at: 'flagged' | 'guarded' | 'judged') => void) | undefined;
}

// A flag on another host cannot be judged by its process; a guard is held for a few file
// operations, so one this old was left by a process killed while holding it.
const FOREIGN_FLAG_STALE_MS = 60_000;
const FLAG_SUFFIX = /^\d+\.[0-9a-f]{8}$/;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (the lock core is synchronous: it runs inside synchronous writes). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/**
 * Runs `fn` holding the takeover guard of the lock at `path`: this process's own flag file
 * `<path>.takeover.<pid>.<hex>` is created, then the flags beside it are read; while no other live
 * process has one, the guard is ours. Undefined (fn not run) when another process holds or wants
 * it: the caller waits on it or gives up, as it would on a live lock.
 */
export function withTakeoverGuard<T>(
  path: string,
  fn: () => T,
  hooks: TakeoverHooks = {},
): { value: T } | undefined {
  const flag = `${path}.takeover.${process.pid}.${randomBytes(4).toString('hex')}`;
  if (!createLockFile(flag, thisHolder(), 'takeover guard')) return undefined;
  try {
    hooks.step?.('flagged');
    if (othersFlagged(path, flag)) return undefined;
    hooks.step?.('guarded');
    return { value: fn() };
  } finally {
    rmSync(flag, { force: true });
  }
}

/** True when another live process has a flag for `path`; flags of dead processes are removed. */
function othersFlagged(path: string, mine: string): boolean {
  const dir = dirname(path);
  const prefix = `${basename(path)}.takeover.`;
  let others = false;
  for (const name of readdirSync(dir)) {
    const flag = join(dir, name);
    // Not the temp files flags are created from (`<flag>.<pid>.<hex>.tmp`).
    if (!name.startsWith(prefix) || !FLAG_SUFFIX.test(name.slice(prefix.length)) || flag === mine) continue;
    if (flagLeftBehind(flag)) rmSync(flag, { force: true });
    else others = true;
  }
  return others;
}

/**
 * A flag whose process is gone (same host: by pid and start time; another host: by age). Gone
 * meanwhile counts as left behind (removing it again is harmless); a flag is created whole, so an
 * unreadable one is not a racer's.
 */
function flagLeftBehind(flag: string): boolean {
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(flag).mtimeMs;
  } catch {
    return true;
  }
  const holder = readLock<LockHolder>(flag);
  if (holder === undefined) return true;
  return holder.host === hostname() ? !lockHolderAlive(holder) : ageMs > FOREIGN_FLAG_STALE_MS;
}
