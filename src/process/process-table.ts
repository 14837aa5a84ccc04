import { RalphError } from '../errors.ts';

/**
 * The process table Ralph reads (pids, parents, groups, start times, command lines, the run's mark
 * in environments): /proc where the kernel has it (Linux), else `ps` (macOS). Callers go through
 * pids.ts and marked-processes.ts and never know which one runs.
 */

/** One process as a process table lists it. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  /** The state letters (`ps -o stat`): a zombie's start with Z. */
  state: string;
  /**
   * When it started, as the table says it (/proc: clock ticks after boot; ps: `epoch:<seconds>`):
   * with the pid, identifies one process across pid reuse.
   */
  startTime: string;
}

/** How ps start times are written (`epoch:<seconds>`), so /proc can compare them, and ps can tell /proc's ticks apart. */
export const EPOCH_PREFIX = 'epoch:';

/** A live process whose environment holds the mark variable, and the mark's value. */
export interface MarkedEntry {
  pid: number;
  startTime: string;
  mark: string;
}

/**
 * The machine's process count and the last pid handed out, read together before a scan (/proc
 * only; both undefined from ps): a later scan then reads only the processes started since.
 */
export interface ScanPoint {
  count: number | undefined;
  pid: { last: number; max: number } | undefined;
}

/** One way to read the process table; pids.ts picks one per process. */
export interface ProcessTable {
  readonly kind: ProcessTableKind;
  /** One process, zombies included; undefined when gone or the table cannot be read. */
  entry(pid: number): ProcessEntry | undefined;
  /** Every process, zombies included; undefined when the table cannot be read. */
  entries(): ProcessEntry[] | undefined;
  /** The command line, arguments joined by spaces; undefined when gone. */
  command(pid: number): string | undefined;
  /** When the process started (epoch ms: to 10 ms from /proc, to the second from ps). */
  startedAtMs(pid: number): number | undefined;
  /**
   * Whether a start time recorded earlier (by either table) is the start of the process now at
   * `pid`: false for a reused pid, undefined when this table cannot tell (gone, or a format it
   * cannot convert).
   */
  sameStart(recorded: string, pid: number): boolean | undefined;
  scanPoint(): ScanPoint;
  /**
   * Live processes (never this one) whose environment holds `name`, with its value; with `since`,
   * only those started after it when the table can tell. Undefined when it cannot be read.
   */
  marked(name: string, since?: ScanPoint, at?: ScanPoint): MarkedEntry[] | undefined;
}

export type ProcessTableKind = 'proc' | 'ps';

/** The variable that forces a table (tests run the supervision suite with `ps` on Linux too). */
export const PROCESS_TABLE_VAR = 'RALPH_PROCESS_TABLE';

/**
 * Which table to read: the one `RALPH_PROCESS_TABLE` names, else /proc when it is there (Linux),
 * else ps. A value that is neither, or `proc` without /proc, is an error that says what to set.
 */
export function chooseProcessTable(forced: string | undefined, hasProc: boolean): ProcessTableKind {
  if (forced === undefined || forced === '') return hasProc ? 'proc' : 'ps';
  if (forced === 'ps') return 'ps';
  if (forced === 'proc') {
    if (hasProc) return 'proc';
    throw new RalphError(
      'usage',
      `${PROCESS_TABLE_VAR}=proc, but this system has no /proc/self/stat: unset it or set ${PROCESS_TABLE_VAR}=ps`,
    );
  }
  throw new RalphError(
    'usage',
    `${PROCESS_TABLE_VAR}=${forced} is not a process table: use ps or proc, or unset it`,
  );
}
