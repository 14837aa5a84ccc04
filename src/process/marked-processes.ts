import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  forkCount,
  isProcess,
  kernelThreadPids,
  lastPid,
  processCommand,
  readProcBytes,
  readProcStat,
} from './pids.ts';

/**
 * Every process of an iteration carries this variable (inherited through fork, setsid and daemons),
 * so what escaped every process group is still found. Deliberately not named *TOKEN/*KEY/*SECRET:
 * agent CLIs strip such variables from the environment of the tools they start.
 */
export const MARK_VAR = 'RALPH_ITERATION_MARK';

/** A process Ralph killed, as the iteration record lists it. */
export interface KilledProcess {
  pid: number;
  command: string;
}

/** Which marks to sweep: one run's (every iteration), or one iteration's. */
export interface MarkSelector {
  runId: string;
  iteration?: number | undefined;
}

export interface SweepOptions {
  /**
   * How many processes the caller started since this run's last sweep, every one of which has
   * exited (an agent whose exit was seen). When nothing else was started on the machine since
   * that sweep found none left, no process can carry the mark, and /proc is not scanned.
   */
  started?: number | undefined;
}

/** Kills the marked processes (SIGTERM, SIGKILL after the grace) and says which were found. */
export type SweepMarked = (
  select: MarkSelector,
  graceMs: number,
  options?: SweepOptions,
) => Promise<KilledProcess[]>;

/** The mark of one iteration of one run. */
export function markFor(runId: string, iteration: number): string {
  return `${runId}:${iteration}`;
}

/** The value of `name` in a /proc/<pid>/environ blob (NUL-separated NAME=value), or undefined. */
export function environValue(environ: string, name: string): string | undefined {
  const prefix = `${name}=`;
  for (const entry of environ.split('\0')) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return undefined;
}

/** True when a mark belongs to the selection: the exact iteration, or any iteration of the run. */
export function markSelected(mark: string, select: MarkSelector): boolean {
  if (select.runId === '') return false;
  if (select.iteration !== undefined) return mark === markFor(select.runId, select.iteration);
  const rest = mark.startsWith(`${select.runId}:`) ? mark.slice(select.runId.length + 1) : undefined;
  return rest !== undefined && /^\d+$/.test(rest);
}

let sweepable: boolean | undefined;

/** Whether /proc can be swept here: Linux only; elsewhere the sweep finds nothing. Asked once. */
export function canSweep(): boolean {
  sweepable ??= procListable();
  return sweepable;
}

function procListable(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    readdirSync('/proc');
    return true;
  } catch {
    return false;
  }
}

const MARK_BYTES = Buffer.from(`${MARK_VAR}=`, 'latin1');

/** The mark in /proc/<pid>/environ, or undefined (no mark, gone, or another user's process). */
function readMark(pid: number): string | undefined {
  const bytes = readProcBytes(`/proc/${pid}/environ`);
  // Decoded only when the name occurs at all; environValue then finds the exact variable.
  if (bytes === undefined || bytes.indexOf(MARK_BYTES) === -1) return undefined;
  return environValue(bytes.toString('latin1'), MARK_VAR);
}

interface Marked {
  pid: number;
  startTime: string;
}

/** The machine's process count and the last pid handed out, read together before a scan. */
interface ScanPoint {
  count: number | undefined;
  pid: ReturnType<typeof lastPid>;
}

const scanPoint = (): ScanPoint => ({ count: forkCount(), pid: lastPid() });

/** The new pids since a clean point: a test, and how many pids it spans. */
interface NewPids {
  isNew: (pid: number) => boolean;
  from: number;
  span: number;
  max: number;
}

/**
 * Which pids may be new since `since`: those handed out after its last pid, up to the last one now
 * (read after `at`, so every process started before `at` is inside; a later one is the next sweep's).
 * Undefined (every pid) when that is unknown, or when so many processes were started (counted at
 * `at`) that the pids may have come round again.
 */
function newPidsSince(since: ScanPoint | undefined, at: ScanPoint): NewPids | undefined {
  if (since?.pid === undefined || since.count === undefined || at.count === undefined) return undefined;
  const now = lastPid();
  if (now === undefined || at.count - since.count >= now.max / 2) return undefined;
  const from = since.pid.last;
  const span = now.last >= from ? now.last - from : now.max - from + now.last;
  return { isNew: pidsHandedOutAfter(from, now.last), from, span, max: now.max };
}

/** Up to this many new pids are looked up one by one; more, and /proc is listed. */
const PROBE_MAX = 64;

/**
 * The pids to read: every new one in turn when there are few (a pid that is gone costs a failed
 * open, less than listing /proc), else the listing of /proc, new ones only when known.
 */
function candidatePids(fresh: NewPids | undefined): number[] | undefined {
  if (fresh !== undefined && fresh.span <= PROBE_MAX) {
    const pids: number[] = [];
    for (let i = 1; i <= fresh.span; i++) pids.push(((fresh.from + i - 1) % fresh.max) + 1);
    return pids;
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid > 0 && (fresh === undefined || fresh.isNew(pid))) pids.push(pid);
  }
  return pids;
}

/**
 * The pids handed out after `from` up to `to`, in the kernel's order: upwards, wrapping round to
 * low numbers after pid_max (less than one whole round).
 */
export function pidsHandedOutAfter(from: number, to: number): (pid: number) => boolean {
  return to >= from ? (pid) => pid > from && pid <= to : (pid) => pid > from || pid <= to;
}

/**
 * Live processes (never Ralph itself) whose environment holds a selected mark. With `since` (a
 * point at which no process carried a mark of the selection), only processes started after it are
 * read: a mark is inherited, never acquired, so an older process cannot carry one.
 */
function findMarked(select: MarkSelector, since?: ScanPoint, at: ScanPoint = scanPoint()): Marked[] {
  const fresh = newPidsSince(since, at);
  const pids = candidatePids(fresh);
  if (pids === undefined) return [];
  // Opening a kernel thread's environ costs the most of all, and there may be hundreds of them;
  // among a few new pids there is rarely one, and reading it costs less than finding them all.
  const kernel = fresh === undefined || fresh.span > PROBE_MAX ? kernelThreadPids() : undefined;
  const found: Marked[] = [];
  for (const pid of pids) {
    if (pid === process.pid || kernel?.has(pid)) continue;
    const mark = readMark(pid);
    if (mark === undefined || !markSelected(mark, select)) continue;
    // A pid looked up by number may be a thread's (/proc lists only processes): its process is found too.
    if (fresh !== undefined && fresh.span <= PROBE_MAX && !isProcess(pid)) continue;
    const stat = readProcStat(pid);
    if (stat && stat.state !== 'Z') found.push({ pid, startTime: stat.startTime });
  }
  return found;
}

/** Signals a process unless its pid now belongs to another process (start time changed). */
function signalIfSame(p: Marked, signal: NodeJS.Signals): void {
  if (readProcStat(p.pid)?.startTime !== p.startTime) return;
  try {
    process.kill(p.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Kills every live process with a selected mark, whatever its session, group or parent: SIGTERM,
 * then SIGKILL after `graceMs`. Processes forked meanwhile inherit the mark and are found too.
 */
/**
 * Per run: the process count (forkCount) read just before a scan that found none of the run's
 * processes. Every marked process descends from one Ralph started after that point, or from a
 * marked one, so if the count grew only by processes the caller started and saw exit, none exists.
 */
const cleanAt = new Map<string, ScanPoint>();

/**
 * Kills every live process with a selected mark, whatever its session, group or parent: SIGTERM,
 * then SIGKILL after `graceMs`. Processes forked meanwhile inherit the mark and are found too.
 */
export const sweepMarkedProcesses: SweepMarked = async (select, graceMs, options = {}) => {
  if (!canSweep()) return [];
  // Only whole-run sweeps keep the clean point: an iteration's sweep says nothing of the others.
  const run = select.iteration === undefined && select.runId !== '' ? select.runId : undefined;
  let counted = scanPoint();
  const clean = run === undefined ? undefined : cleanAt.get(run);
  if (
    options.started !== undefined &&
    clean?.count !== undefined &&
    counted.count === clean.count + options.started
  ) {
    cleanAt.set(run as string, counted);
    return [];
  }
  const killed = new Map<number, KilledProcess>();
  const term = (found: Marked[]) => {
    for (const p of found) {
      if (!killed.has(p.pid)) killed.set(p.pid, { pid: p.pid, command: processCommand(p.pid) });
      signalIfSame(p, 'SIGTERM');
    }
  };
  const scan = (since?: ScanPoint, at = scanPoint()) => {
    counted = at;
    return findMarked(select, since, at);
  };
  // After a clean point, only what was started since can carry the run's mark.
  let found = scan(clean, counted);
  if (found.length > 0) {
    term(found);
    const deadline = Date.now() + graceMs;
    while (found.length > 0 && Date.now() < deadline) {
      await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
      found = scan();
      term(found.filter((p) => !killed.has(p.pid)));
    }
    for (let i = 0; i < 80 && found.length > 0; i++) {
      for (const p of found) {
        if (!killed.has(p.pid)) killed.set(p.pid, { pid: p.pid, command: processCommand(p.pid) });
        signalIfSame(p, 'SIGKILL');
      }
      await sleep(25);
      found = scan();
    }
  }
  if (run !== undefined) {
    if (found.length === 0 && counted.count !== undefined) cleanAt.set(run, counted);
    else cleanAt.delete(run);
  }
  return [...killed.values()];
};

/** SIGKILLs every marked process at once, synchronously: the forced stop (second Ctrl-C). */
export function killMarkedNow(select: MarkSelector): number {
  if (!canSweep()) return 0;
  const pids = new Set<number>();
  // A few passes: a process forking just before the kill leaves a child with the mark.
  for (let pass = 0; pass < 3; pass++) {
    for (const p of findMarked(select)) {
      pids.add(p.pid);
      signalIfSame(p, 'SIGKILL');
    }
  }
  return pids.size;
}
