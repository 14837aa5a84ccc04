import { setTimeout as sleep } from 'node:timers/promises';
import { processCommand, processTable, sameProcessStart } from './pids.ts';
import type { MarkedEntry, ScanPoint } from './process-table.ts';

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

/** True when a mark belongs to the selection: the exact iteration, or any iteration of the run. */
export function markSelected(mark: string, select: MarkSelector): boolean {
  if (select.runId === '') return false;
  if (select.iteration !== undefined) return mark === markFor(select.runId, select.iteration);
  const rest = mark.startsWith(`${select.runId}:`) ? mark.slice(select.runId.length + 1) : undefined;
  return rest !== undefined && /^\d+$/.test(rest);
}

/**
 * Live processes (never Ralph itself) whose environment holds a selected mark. With `since` (a
 * point at which no process carried a mark of the selection), only processes started after it are
 * read where the table can tell: a mark is inherited, never acquired, so an older one cannot carry one.
 */
function findMarked(select: MarkSelector, since?: ScanPoint, at?: ScanPoint): MarkedEntry[] {
  const found = processTable().marked(MARK_VAR, since, at) ?? [];
  return found.filter((p) => markSelected(p.mark, select));
}

/** Signals a process unless its pid now belongs to another process (start time changed). */
function signalIfSame(p: MarkedEntry, signal: NodeJS.Signals): void {
  if (sameProcessStart(p.startTime, p.pid) !== true) return;
  try {
    process.kill(p.pid, signal);
  } catch {
    // already gone
  }
}

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
  const table = processTable();
  // Only whole-run sweeps keep the clean point: an iteration's sweep says nothing of the others.
  const run = select.iteration === undefined && select.runId !== '' ? select.runId : undefined;
  let counted = table.scanPoint();
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
  const term = (found: MarkedEntry[]) => {
    for (const p of found) {
      if (!killed.has(p.pid)) killed.set(p.pid, { pid: p.pid, command: processCommand(p.pid) });
      signalIfSame(p, 'SIGTERM');
    }
  };
  const scan = (since?: ScanPoint, at = table.scanPoint()) => {
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
