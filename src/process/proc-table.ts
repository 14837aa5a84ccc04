import { readdirSync, readFileSync } from 'node:fs';
import {
  forkCount,
  isProcess,
  kernelThreadPids,
  lastPid,
  readProcBytes,
  readProcStat,
  ticksToEpochMs,
} from './proc-files.ts';
import {
  EPOCH_PREFIX,
  type MarkedEntry,
  type ProcessEntry,
  type ProcessTable,
  type ScanPoint,
} from './process-table.ts';

/** The pids /proc lists, or undefined when it cannot be listed. */
function listedPids(): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid > 0) pids.push(pid);
  }
  return pids;
}

/** The value of `name` in a /proc/<pid>/environ blob (NUL-separated NAME=value), or undefined. */
export function environValue(environ: string, name: string): string | undefined {
  const prefix = `${name}=`;
  for (const entry of environ.split('\0')) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return undefined;
}

/** The value of `name` in /proc/<pid>/environ, or undefined (not there, gone, another user's). */
function readEnvironValue(pid: number, name: string, nameBytes: Buffer): string | undefined {
  const bytes = readProcBytes(`/proc/${pid}/environ`);
  // Decoded only when the name occurs at all; environValue then finds the exact variable.
  if (bytes === undefined || bytes.indexOf(nameBytes) === -1) return undefined;
  return environValue(bytes.toString('latin1'), name);
}

/** The new pids since a clean point: a test, and how many pids it spans. */
interface NewPids {
  isNew: (pid: number) => boolean;
  from: number;
  span: number;
  max: number;
}

/**
 * The pids handed out after `from` up to `to`, in the kernel's order: upwards, wrapping round to
 * low numbers after pid_max (less than one whole round).
 */
export function pidsHandedOutAfter(from: number, to: number): (pid: number) => boolean {
  return to >= from ? (pid) => pid > from && pid <= to : (pid) => pid > from || pid <= to;
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
  const listed = listedPids();
  return fresh === undefined ? listed : listed?.filter(fresh.isNew);
}

/** Live processes with the variable: after `since` (a clean point) only the pids handed out since. */
function procMarked(
  name: string,
  since?: ScanPoint,
  at: ScanPoint = procScanPoint(),
): MarkedEntry[] | undefined {
  const fresh = newPidsSince(since, at);
  const pids = candidatePids(fresh);
  if (pids === undefined) return undefined;
  const probed = fresh !== undefined && fresh.span <= PROBE_MAX;
  // Opening a kernel thread's environ costs the most of all, and there may be hundreds of them;
  // among a few new pids there is rarely one, and reading it costs less than finding them all.
  const kernel = probed ? undefined : kernelThreadPids();
  const nameBytes = Buffer.from(`${name}=`, 'latin1');
  const found: MarkedEntry[] = [];
  for (const pid of pids) {
    if (pid === process.pid || kernel?.has(pid)) continue;
    const mark = readEnvironValue(pid, name, nameBytes);
    if (mark === undefined) continue;
    // A pid looked up by number may be a thread's (/proc lists only processes): its process is found too.
    if (probed && !isProcess(pid)) continue;
    const stat = readProcStat(pid);
    if (stat && stat.state !== 'Z') found.push({ pid, startTime: stat.startTime, mark });
  }
  return found;
}

const procScanPoint = (): ScanPoint => ({ count: forkCount(), pid: lastPid() });

function procStartedAtMs(pid: number): number | undefined {
  const stat = readProcStat(pid);
  return stat === undefined ? undefined : ticksToEpochMs(Number(stat.startTime));
}

/** The process table from /proc (Linux): exact start times, and sweeps that read only new pids. */
export const procTable: ProcessTable = {
  kind: 'proc',
  entry: readProcStat,
  entries: () => {
    const pids = listedPids();
    if (pids === undefined) return undefined;
    const entries: ProcessEntry[] = [];
    for (const pid of pids) {
      const stat = readProcStat(pid);
      if (stat) entries.push(stat);
    }
    return entries;
  },
  command: (pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
    } catch {
      return undefined;
    }
  },
  startedAtMs: procStartedAtMs,
  sameStart: (recorded, pid) => {
    // Recorded by ps (RALPH_PROCESS_TABLE=ps): ps computes the same boot time plus ticks, to the second.
    if (recorded.startsWith(EPOCH_PREFIX)) {
      const ms = procStartedAtMs(pid);
      return ms === undefined ? undefined : `${EPOCH_PREFIX}${Math.floor(ms / 1000)}` === recorded;
    }
    const now = readProcStat(pid)?.startTime;
    return now === undefined ? undefined : now === recorded;
  },
  scanPoint: procScanPoint,
  marked: procMarked,
};
