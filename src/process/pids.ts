import { existsSync } from 'node:fs';
import { procTable } from './proc-table.ts';
import {
  chooseProcessTable,
  PROCESS_TABLE_VAR,
  type ProcessEntry,
  type ProcessTable,
} from './process-table.ts';
import { psTable } from './ps-table.ts';

let chosen: { forced: string | undefined; table: ProcessTable } | undefined;

/**
 * The process table this process reads: /proc when /proc/self/stat exists, else ps, unless
 * RALPH_PROCESS_TABLE names one. Chosen once per value of the variable.
 */
export function processTable(): ProcessTable {
  const forced = process.env[PROCESS_TABLE_VAR];
  if (chosen === undefined || chosen.forced !== forced) {
    const kind = chooseProcessTable(forced, existsSync('/proc/self/stat'));
    chosen = { forced, table: kind === 'proc' ? procTable : psTable };
  }
  return chosen.table;
}

/**
 * `kill(target, 0)`: null when the process (target > 0) or group (target < 0) exists and may be
 * signalled, else the error's code (ESRCH: none; EPERM: exists, someone else's). The answer "none"
 * is expected after every iteration's agent: its error captures no stack trace (it cost more than
 * the system call).
 */
export function probeSignal(target: number): string | null {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(target, 0);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** True when a process with this pid exists (a zombie counts as gone). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const error = probeSignal(pid);
  if (error !== null) return error === 'EPERM';
  const entry = processTable().entry(pid);
  return entry === undefined ? true : !entry.state.startsWith('Z');
}

/** A process's pid, parent, group, state and start time; undefined when it is gone. */
export function processInfo(pid: number): ProcessEntry | undefined {
  return processTable().entry(pid);
}

let ownStart: string | undefined;

/** This process's start time (it never changes: read once). */
export function ownStartTime(): string | undefined {
  ownStart ??= processTable().entry(process.pid)?.startTime;
  return ownStart;
}

/** When a process started (epoch ms); undefined when it is gone or the table cannot say. */
export function processStartedAtMs(pid: number): number | undefined {
  return processTable().startedAtMs(pid);
}

/**
 * Whether the process at `pid` is the one whose start time was recorded: false when the pid now
 * belongs to another process, undefined when that cannot be told (gone, or recorded by a table this
 * one cannot compare with).
 */
export function sameProcessStart(recorded: string, pid: number): boolean | undefined {
  return processTable().sameStart(recorded, pid);
}

/** Live (non-zombie) members of a process group; [pgid] while the group exists and the table cannot be read. */
export function liveGroupMembers(pgid: number): number[] {
  if (probeSignal(-pgid) === 'ESRCH') return [];
  const entries = processTable().entries();
  if (entries === undefined) return [pgid];
  return entries.filter((e) => e.pgid === pgid && !e.state.startsWith('Z')).map((e) => e.pid);
}

/**
 * Process groups of the live descendants of a group's members that left it (a CLI that starts its
 * tools with `detached: true`, or `setsid`): killing only the agent's own group would miss them.
 */
export function escapedDescendantGroups(pgid: number): number[] {
  const table = (processTable().entries() ?? []).filter((e) => !e.state.startsWith('Z'));
  const children = new Map<number, ProcessEntry[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const groups = new Set<number>();
  const leader = table.find((p) => p.pid === pgid);
  if (leader && leader.pgid !== pgid && leader.pgid > 1 && leader.pgid !== process.pid)
    groups.add(leader.pgid);
  // The leader too: a CLI that moved itself to another group still has the agent's pid.
  const queue = table.filter((p) => p.pgid === pgid || p.pid === pgid).map((p) => p.pid);
  const seen = new Set(queue);
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      if (child.pgid !== pgid && child.pgid > 1 && child.pgid !== process.pid) groups.add(child.pgid);
      queue.push(child.pid);
    }
  }
  return [...groups];
}

/** The command line of a process (shortened), for records that list what Ralph killed. */
export function processCommand(pid: number): string {
  const text = processTable().command(pid) ?? '';
  return text.length > 200 ? `${text.slice(0, 199)}…` : text || `pid ${pid}`;
}
