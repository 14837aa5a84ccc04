import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processInfo } from '../process/pids.ts';
import { writeJsonAtomicSync } from './io/atomic-write.ts';
import {
  acquireLockFile,
  type LockHolder,
  lockHolderAlive,
  readLock,
  type TakeoverHooks,
} from './io/lock.ts';

// Task claims of a parallel run (`.ralph/parallel/claims/`): which live worker process owns a task.

/**
 * A claim: this task belongs to this live worker process (DESIGN.md §5). A lock file on the one
 * lock core (io/lock.ts): its holder is the worker process, judged alive by pid, host and start time.
 */
export interface Claim extends LockHolder {
  task: string;
  worker: string;
}

/** How a claimer judges a claim's holder; injected by tests to act between a judgement and its effect. */
export interface ClaimOptions {
  alive?: ((holder: LockHolder) => boolean) | undefined;
  /** Called at each step of a takeover (tests run other claimers there). */
  step?: TakeoverHooks['step'];
}

function claimFile(dir: string, task: string): string {
  return join(dir, `${task}.json`);
}

function claimOf(task: string, worker: string, pid: number): Claim {
  const startTime = processInfo(pid)?.startTime;
  return {
    task,
    worker,
    pid,
    host: hostname(),
    ...(startTime === undefined ? {} : { start_time: startTime }),
  };
}

/**
 * Takes the claim of `task` for `worker`/`pid` on the lock core: created whole or not at all (a
 * hard link, which fails when the task is already claimed); a claim whose process is dead is removed
 * under the takeover guard, so a fresh claim another claimer took meanwhile is never removed.
 * Returns false when a live process holds it or is taking it over.
 */
export function takeClaim(
  dir: string,
  task: string,
  worker: string,
  pid: number,
  options: ClaimOptions = {},
): boolean {
  const alive = options.alive ?? lockHolderAlive;
  mkdirSync(dir, { recursive: true });
  return acquireLockFile<LockHolder>(claimFile(dir, task), {
    content: claimOf(task, worker, pid),
    what: 'task claim',
    // Dead, or unreadable (a claim is never half-written): removed, then taken anew.
    stale: (h) => {
      const c = h && asClaim(h);
      return c === undefined || !alive(c);
    },
    hooks: options,
  }).held;
}

/** Moves a claim to another process of the same worker (the coordinator hands it to the worker it started). */
export function handOverClaim(dir: string, claim: Pick<Claim, 'task' | 'worker'>, pid: number): void {
  writeJsonAtomicSync(claimFile(dir, claim.task), claimOf(claim.task, claim.worker, pid));
}

export function releaseClaim(dir: string, task: string): void {
  rmSync(claimFile(dir, task), { force: true });
}

/**
 * A claim as read: one written before claims named their host is this host's, and a `start_time`
 * of null (unknown) is absent.
 */
function asClaim(raw: LockHolder): Claim | undefined {
  const c = raw as Partial<Claim> & { start_time?: string | null };
  if (typeof c.task !== 'string') return undefined;
  const { start_time, ...rest } = c;
  return {
    ...(rest as Claim),
    worker: typeof c.worker === 'string' ? c.worker : 'w?',
    host: typeof c.host === 'string' ? c.host : hostname(),
    ...(typeof start_time === 'string' ? { start_time } : {}),
  };
}

function readClaim(path: string): Claim | undefined {
  const raw = readLock<LockHolder>(path);
  return raw && asClaim(raw);
}

export function readClaims(dir: string): Claim[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => readClaim(join(dir, n)))
    .filter((c): c is Claim => c !== undefined);
}
