import { posix } from 'node:path';
import { literalPattern, pathMatcher } from '../config/path-patterns.ts';
import { RALPH_DIR } from '../state/paths.ts';

export { parseReport, type ReportCheck, type ReportStatus, reportProblem } from './tdd-report.ts';
/**
 * The TDD state loop (seed 004), as pure decisions: the state file and the report are parsed in
 * tdd-state.ts / tdd-report.ts, failing tests are fingerprinted in test-signature.ts; this file
 * decides the mode, scope violations, stuck loops and report archiving.
 */
export {
  appendHistory,
  type CreativeTask,
  type HistoryEntry,
  historyLine,
  openCreativeTasks,
  parseTddState,
  type TddState,
} from './tdd-state.ts';
export { failingTestSignature } from './test-signature.ts';

/** What the next iteration should work on. */
export type TddMode = 'engineering' | 'creative' | 'done';

/**
 * Picks the mode (pure). Red or not-yet-run tests → engineering (never proceed on red); green with
 * open creative tasks → creative; green with engineering work left → engineering; else done.
 */
export function decideMode(input: {
  /** The last test gate: true green, false red, null not run yet. */
  testsPassed: boolean | null;
  creativeTasksOpen: number;
  engineeringWorkLeft: boolean;
}): TddMode {
  if (input.testsPassed !== true) return 'engineering';
  if (input.creativeTasksOpen > 0) return 'creative';
  if (input.engineeringWorkLeft) return 'engineering';
  return 'done';
}

/** A workspace-relative path in one spelling: `/` separators, no `./`, no trailing `/`. */
function normalizePath(path: string): string {
  const p = posix.normalize(path.trim().replace(/\\/g, '/'));
  return p === '/' ? p : p.replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
}

/**
 * Changed files outside every allowed path (pure), normalised, each once, in input order. Allowed
 * entries are path patterns (config/path-patterns.ts: a directory covers its files, globs work);
 * an empty `allowedPaths` means no check. `ignore` holds Ralph's own paths (see `tddOwnPaths`).
 */
export function scopeViolations(
  changedFiles: readonly string[],
  allowedPaths: readonly string[],
  ignore: readonly string[],
): string[] {
  if (allowedPaths.length === 0) return [];
  const allowed = pathMatcher(allowedPaths);
  const ignored = pathMatcher(ignore.map((p) => literalPattern(normalizePath(p))));
  const out = new Set<string>();
  for (const raw of changedFiles) {
    if (raw.trim() === '') continue;
    const file = normalizePath(raw);
    if (ignored(file) || allowed(file)) continue;
    out.add(file);
  }
  return [...out];
}

/**
 * Ralph's own paths, never scope violations: `.ralph/`, the directories of the state file, the
 * report and the tests report (the file itself when it sits at the workspace root), the archive.
 */
export function tddOwnPaths(files: {
  stateFile: string;
  reportFile: string;
  archiveDir: string;
  testsReportFile?: string | undefined;
}): string[] {
  const dirOf = (file: string) => {
    const p = normalizePath(file);
    const d = posix.dirname(p);
    return d === '.' ? p : d;
  };
  const paths = [RALPH_DIR, dirOf(files.stateFile), dirOf(files.reportFile), normalizePath(files.archiveDir)];
  if (files.testsReportFile) paths.push(dirOf(files.testsReportFile));
  return [...new Set(paths)];
}

/** The same failing-test signature over consecutive iterations whose tests ran. */
export interface FailureStreak {
  signature: string | null;
  repeats: number;
}

/**
 * The streak after one more test run (pure): a green run (null signature) resets it, the same
 * signature extends it, another one starts over. Iterations whose tests did not run leave it alone.
 */
export function nextFailureStreak(prev: FailureStreak, signature: string | null): FailureStreak {
  if (signature === null) return { signature: null, repeats: 0 };
  return { signature, repeats: signature === prev.signature ? prev.repeats + 1 : 1 };
}

/** Stuck: the same tests have failed `stuckIterations` test runs in a row. */
export function isStuck(streak: FailureStreak, stuckIterations: number): boolean {
  return streak.signature !== null && streak.repeats >= stuckIterations;
}

/** Move the accumulated reports to the archive after every `archiveAfter`-th iteration. */
export function shouldArchive(iteration: number, archiveAfter: number): boolean {
  if (!Number.isInteger(iteration) || !Number.isInteger(archiveAfter)) return false;
  return iteration > 0 && archiveAfter > 0 && iteration % archiveAfter === 0;
}

/** The archived report's file name: `last_output-iteration-0100.md` (from `loop/last_output.md`). */
export function archiveName(iteration: number, reportFile = 'last_output.md'): string {
  const base = posix.basename(normalizePath(reportFile));
  const ext = posix.extname(base);
  const stem = (ext ? base.slice(0, -ext.length) : base) || 'last_output';
  return `${stem}-iteration-${String(Math.trunc(iteration)).padStart(4, '0')}${ext || '.md'}`;
}
