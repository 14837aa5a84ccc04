import { lstatSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { RalphPaths } from './paths.ts';

/** A run's directory under `.ralph/runs` and when it was last written. */
export interface RunDir {
  name: string;
  lastWrittenMs: number;
}

/**
 * The run directories to delete so that `keep` remain (`logs.keep_runs`): the least recently
 * written ones, never `current` (the run going on now, the only one that can be resumed; or
 * several entries still in use, each counted in `keep`). 0 keeps all.
 */
export function runDirsToPrune(
  dirs: readonly RunDir[],
  keep: number,
  current: string | readonly string[],
): string[] {
  if (keep <= 0) return [];
  const live = typeof current === 'string' ? [current] : current;
  // Newest first by last write; the name breaks ties (Ralph's dated names sort by age).
  const others = dirs
    .filter((d) => !live.includes(d.name))
    .sort((a, b) => b.lastWrittenMs - a.lastWrittenMs || (a.name < b.name ? 1 : -1));
  return others.slice(Math.max(0, keep - live.length)).map((d) => d.name);
}

/** When anything in a run directory was last written (the directory itself, or a file in it). */
function lastWritten(dir: string): number {
  let last = lstatSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    try {
      last = Math.max(last, lstatSync(join(dir, name)).mtimeMs);
    } catch {
      // Gone meanwhile.
    }
  }
  return last;
}

/**
 * Deletes the oldest run directories under `runsDir` beyond `keep` (see `runDirsToPrune`). Only
 * real directories directly in `runsDir` are candidates: a symlink or a file there is left alone,
 * and nothing outside it is touched. Returns the names deleted; one that cannot be is skipped.
 */
export function pruneRunDirs(runsDir: string, keep: number, current: string): string[] {
  return pruneOldest(runsDir, keep, current, (st) => st.isDirectory(), lastWritten);
}

/**
 * A run's start: the oldest run directories and run logs beyond `logs.keep_runs` and
 * `logs.keep_logs` deleted, never this run's (`runId`, `logName`); a notice for each kind deleted.
 */
export function pruneAtStart(
  paths: Pick<RalphPaths, 'runs' | 'logs'>,
  keep: { keep_runs: number; keep_logs: number },
  runId: string,
  logName: string,
): string[] {
  const notices: string[] = [];
  const runs = pruneRunDirs(paths.runs, keep.keep_runs, runId);
  if (runs.length > 0)
    notices.push(
      `deleted the ${runs.length} oldest run director${runs.length === 1 ? 'y' : 'ies'} under .ralph/runs (logs.keep_runs: ${keep.keep_runs})`,
    );
  const logs = pruneRunLogs(paths.logs, keep.keep_logs, logName);
  if (logs.length > 0)
    notices.push(
      `deleted the ${logs.length} oldest run log(s) under .ralph/logs (logs.keep_logs: ${keep.keep_logs})`,
    );
  return notices;
}

/**
 * Deletes the oldest run logs (`*.log` files directly in `logsDir`) beyond `keep`
 * (`logs.keep_logs`), by when they were last written; never `current` (this run's log, the only
 * one still written: one run per workspace holds the lock). Returns the names deleted.
 */
export function pruneRunLogs(logsDir: string, keep: number, current: string): string[] {
  return pruneLogFiles(logsDir, keep, current, (name) => name.endsWith('.log'));
}

/**
 * Deletes the oldest log files directly in `dir` whose names `isLog` accepts beyond `keep`, by
 * when they were last written; never one of `current` (logs still written). Returns the names deleted.
 */
export function pruneLogFiles(
  dir: string,
  keep: number,
  current: string | readonly string[],
  isLog: (name: string) => boolean,
): string[] {
  return pruneOldest(
    dir,
    keep,
    current,
    (st, name) => st.isFile() && isLog(name),
    (_path, st) => st.mtimeMs,
  );
}

/** The one pruning walk: the entries of `dir` that `candidate` accepts, beyond the newest `keep` (runDirsToPrune). */
function pruneOldest(
  dir: string,
  keep: number,
  current: string | readonly string[],
  candidate: (st: Stats, name: string) => boolean,
  written: (path: string, st: Stats) => number,
): string[] {
  if (keep <= 0) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  // Every entry but the live ones counted as a candidate: when even that many fit in what is kept,
  // nothing can go, and no entry (nor, for a run directory, each file in it) is stated.
  const live = typeof current === 'string' ? [current] : current;
  if (names.filter((n) => !live.includes(n)).length <= Math.max(0, keep - live.length)) return [];
  const found: RunDir[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (candidate(st, name)) found.push({ name, lastWrittenMs: written(path, st) });
    } catch {
      // Gone meanwhile, or unreadable: not ours to judge.
    }
  }
  const removed: string[] = [];
  for (const name of runDirsToPrune(found, keep, current)) {
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Permissions: kept, and tried again at the next start.
    }
  }
  return removed;
}
