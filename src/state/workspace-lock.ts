import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, realpathSync, rmSync, type Stats, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RalphError } from '../errors.ts';
import { isPidAlive } from '../process/pids.ts';
import {
  acquireLock,
  acquireLockFile,
  type HeldLock,
  type LockHolder,
  type LockInfo,
  liveHolder,
  lockHolderAlive,
  readLock,
  thisHolder,
} from './io/lock.ts';
import type { RalphPaths } from './paths.ts';
import { userStateDir } from './run-registry.ts';

/**
 * The one-loop-per-workspace lock is two lock files of the lock core (io/lock.ts) with one holder:
 * `.ralph/loop.lock`, which the agent can reach, and its twin under the user's state directory,
 * keyed by the workspace's real path, which it has no reason to touch. A start takes the twin
 * first, so a deleted `.ralph/loop.lock` alone never lets a second loop in; the holder re-asserts
 * both at every boundary of the run (a stat and a compare each while nothing changed).
 */

/** `$XDG_STATE_HOME/ralph/locks/<sha256 of the workspace's real path>.lock`. */
export function lockTwinPath(root: string, env: NodeJS.ProcessEnv): string {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // A workspace that is not there yet is named as given.
  }
  const key = createHash('sha256').update(real).digest('hex').slice(0, 32);
  return join(userStateDir(env), 'locks', `${key}.lock`);
}

/** The live holder of a workspace's loop lock, read from `.ralph/loop.lock`, else from its twin. */
export function workspaceLockHolder(
  paths: RalphPaths,
  env: NodeJS.ProcessEnv = process.env,
): LockInfo | undefined {
  return liveHolder(paths.lock) ?? liveHolder(lockTwinPath(paths.root, env));
}

/** What a re-assertion found: both files ours, a file put back, or another live loop holds it. */
export type LockCheck =
  | { kind: 'held' }
  | { kind: 'restored'; files: string[] }
  | { kind: 'lost'; holder: LockInfo };

/** The held workspace lock: released as one, re-asserted at the run's boundaries. */
export interface WorkspaceLock extends HeldLock {
  /** Both files say this holder again (put back when deleted or rewritten), unless another live loop holds the twin. */
  reassert(): LockCheck;
  /** Set once a re-assertion found another live loop holding the workspace. */
  readonly lostTo: LockInfo | undefined;
}

/**
 * Takes the workspace lock: the twin, then `.ralph/loop.lock`. A live holder of either → LockHeldError
 * naming its pid; a lock left by a dead process (pid, start time, host) is taken over.
 */
export function acquireWorkspaceLock(
  paths: RalphPaths,
  runId: string,
  env: NodeJS.ProcessEnv,
): WorkspaceLock {
  const twinPath = lockTwinPath(paths.root, env);
  mkdirSync(dirname(twinPath), { recursive: true });
  // One holder in both files: either is recognised as ours, and released as ours.
  const me = thisHolder();
  const twin = acquireLock(twinPath, runId, me);
  let local: HeldLock;
  try {
    local = acquireLock(paths.lock, runId, me);
  } catch (error) {
    twin.release();
    throw error;
  }
  removeDeadTemps(twinPath);
  return heldPair(paths.lock, twinPath, local, twin);
}

/**
 * The twin's temp files a killed start left (`<twin>.<pid>.<hex>.tmp`, lock-holder.ts): outside
 * `.ralph/`, so crash repair does not see them. A live starter's is its own to remove.
 */
function removeDeadTemps(twinPath: string): void {
  const prefix = `${basename(twinPath)}.`;
  for (const name of readdirSync(dirname(twinPath))) {
    const pid = /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : '')?.[1];
    if (pid !== undefined && !isPidAlive(Number(pid))) rmSync(join(dirname(twinPath), name), { force: true });
  }
}

function heldPair(localPath: string, twinPath: string, local: HeldLock, twin: HeldLock): WorkspaceLock {
  const info = local.info;
  const ours = (h: LockInfo | undefined) => h?.pid === info.pid && h.started_at === info.started_at;
  const seen = new Map<string, string | undefined>([
    [localPath, fingerprint(localPath)],
    [twinPath, fingerprint(twinPath)],
  ]);
  let lostTo: LockInfo | undefined;
  // A live holder that is not this process (a file naming our pid with another start is a forgery).
  const otherLive = (h: LockHolder) => !(h.pid === info.pid && h.host === info.host) && lockHolderAlive(h);
  // Puts `path` back as ours; the holder when another live loop has it and `yields` says to give way.
  const restore = (path: string, yields: boolean): 'ours' | 'restored' | LockInfo => {
    // The directory too may have gone with the file.
    mkdirSync(dirname(path), { recursive: true });
    const taken = acquireLockFile<LockInfo>(path, {
      content: info,
      what: 'workspace lock',
      ours,
      // Gone, unreadable, a dead holder's, or a forgery (in .ralph/ while the twin is ours, or naming us).
      stale: (h) => !ours(h) && !(yields && h && otherLive(h)),
    });
    if (taken.held) return taken.created || taken.tookOver ? 'restored' : 'ours';
    if (taken.busy && taken.holder) return taken.holder;
    throw new RalphError(
      'lock_failed',
      `could not put back the workspace lock ${path}; another loop is starting`,
    );
  };
  return {
    info,
    tookOver: local.tookOver ?? twin.tookOver,
    get lostTo() {
      return lostTo;
    },
    reassert(): LockCheck {
      if (lostTo) return { kind: 'lost', holder: lostTo };
      const files: string[] = [];
      for (const [path, yields] of [
        [twinPath, true],
        [localPath, false],
      ] as const) {
        const now = fingerprint(path);
        if (now !== undefined && now === seen.get(path)) continue;
        const result = restore(path, yields);
        if (typeof result === 'object') {
          lostTo = result;
          return { kind: 'lost', holder: result };
        }
        if (result === 'restored') files.push(path);
        seen.set(path, fingerprint(path));
      }
      return files.length > 0 ? { kind: 'restored', files } : { kind: 'held' };
    },
    release() {
      // Another loop's files are not ours to remove (release removes only our own content anyway).
      local.release();
      twin.release();
    },
  };
}

/** Identity and content stamp of a file (inode, size, mtime): any rewrite or replacement changes it. */
function fingerprint(path: string): string | undefined {
  let s: Stats | undefined;
  try {
    s = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}` : undefined;
}

/** True when this process holds the workspace's lock (either file says so). */
export function ownsWorkspaceLock(
  paths: RalphPaths,
  env: NodeJS.ProcessEnv = process.env,
  pid = process.pid,
): boolean {
  return [paths.lock, lockTwinPath(paths.root, env)].some((path) => readLock(path)?.pid === pid);
}

/**
 * Removes this process's workspace lock files at once (a forced stop, from a signal handler),
 * leaving any other holder's; `pid`: a parallel worker the coordinator has just killed.
 */
export function dropOwnWorkspaceLock(
  paths: RalphPaths,
  env: NodeJS.ProcessEnv = process.env,
  pid = process.pid,
): void {
  for (const path of [paths.lock, lockTwinPath(paths.root, env)])
    if (readLock(path)?.pid === pid) rmSync(path, { force: true });
}
