import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { appendText, moveFile } from '../../state/io/file-writes.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import type { LoopState } from '../../state/loop-state.ts';
import { ralphPaths } from '../../state/paths.ts';
import {
  appendHistory,
  archiveName,
  decideMode,
  failingTestSignature,
  isStuck,
  nextFailureStreak,
  openCreativeTasks,
  parseReport,
  parseTddState,
  reportProblem,
  scopeViolations,
  shouldArchive,
  tddOwnPaths,
} from '../../workflows/tdd-decisions.ts';
import type { GateResult } from '../gates/checks/run-gate.ts';

type TddConfig = NonNullable<RalphConfig['tdd']>;
export type TddBook = NonNullable<LoopState['tdd']> & { report_hash?: string | null };

export const freshTddBook = (): TddBook => ({
  report_misses: 0,
  report_feedback: null,
  last_signature: null,
  signature_repeats: 0,
  report_hash: null,
});

/** The TDD book as the last iteration left it (a fresh one when `book` is undefined and none is kept). */
export function keepTddBook(state: Pick<LoopState, 'tdd'>, book?: TddBook): void {
  state.tdd = book ?? state.tdd ?? freshTddBook();
}

/** Ralph's own copies: the last good state file and the reports gathered since the last archive. */
function ownFiles(workspace: string) {
  const dir = ralphPaths(workspace).tdd;
  return { dir, goodState: join(dir, 'state.good.md'), reports: join(dir, 'reports.md') };
}

/** Checks the state file before a TDD run: a corrupted one is restored, an unusable one stops the run. */
export function checkTddStateAtStart(
  workspace: string,
  tdd: TddConfig,
): { warning?: string; fatal?: string } {
  const path = resolve(workspace, tdd.state_file);
  const text = readOptional(path, 'absent') ?? null;
  const parsed = text === null ? undefined : parseTddState(text);
  if (parsed?.ok) {
    const own = ownFiles(workspace);
    mkdirSync(own.dir, { recursive: true });
    writeFileAtomicSync(own.goodState, text ?? '');
    return {};
  }
  const restored = restoreState(workspace, tdd);
  if (restored)
    return {
      warning: `${tdd.state_file} ${text === null ? 'was missing' : `was corrupted (${parsed?.problems.join('; ')})`}; ${restored}`,
    };
  return {
    fatal: `${tdd.state_file} ${text === null ? 'does not exist' : `is not usable: ${parsed?.problems.join('; ')}`}; fill in its # Goal, # Current task and # Constraints sections, then run ralph again`,
  };
}

/**
 * Puts the last good copy back, or returns null when there is none. What it replaces is the user's
 * writing: it is kept under `.ralph/tdd/` (by its hash), and the returned text says where.
 */
function restoreState(workspace: string, tdd: TddConfig): string | null {
  const own = ownFiles(workspace);
  const good = readOptional(own.goodState, 'absent') ?? null;
  if (good === null) return null;
  const path = resolve(workspace, tdd.state_file);
  const replaced = readOptional(path, 'absent') ?? null;
  let kept = '';
  if (replaced !== null && replaced !== good) {
    const copy = join(
      own.dir,
      `state.replaced-${createHash('sha256').update(replaced).digest('hex').slice(0, 12)}.md`,
    );
    writeFileAtomicSync(copy, replaced);
    kept = ` (what it held is kept in ${relative(workspace, copy)})`;
  }
  writeFileAtomicSync(path, good);
  return `restored the last good copy${kept}`;
}

export interface TddStepResult {
  book: TddBook;
  reportMissing: string[];
  /** The iteration counts as failed (the report was incomplete too often). */
  forceFailure: string | undefined;
  /** The loop is stuck on the same failing tests. */
  stuck: string | undefined;
  warnings: string[];
  /** The event that routes the next iteration's mode, or null when no work is left. */
  modeEvent: 'tdd.engineering' | 'tdd.creative' | null;
  completionBlockers: string[];
}

/**
 * The TDD loop's checks after an iteration (seed 004): the report's required sections, the state
 * file (restored from the last good copy when corrupted, history appended), stuck detection on the
 * failing-test signature, report archiving, and the mode for the next iteration.
 */
export function tddAfterIteration(input: {
  workspace: string;
  tdd: TddConfig;
  iteration: number;
  tests: GateResult | undefined;
  summary: string;
  book: TddBook;
  now: Date;
}): TddStepResult {
  const { workspace, tdd } = input;
  const book: TddBook = { ...input.book };
  const warnings: string[] = [];
  const own = ownFiles(workspace);
  mkdirSync(own.dir, { recursive: true });

  // The report: missing, unchanged since the last iteration, or lacking sections.
  const report = readOptional(resolve(workspace, tdd.report_file), 'absent') ?? null;
  const hash = report === null ? null : createHash('sha256').update(report).digest('hex');
  const fresh = report !== null && hash !== book.report_hash;
  const check = fresh ? parseReport(report, tdd.required_sections) : null;
  const problem = reportProblem(tdd.report_file, check);
  const reportMissing = check ? check.missing : [...tdd.required_sections];
  book.report_hash = hash;
  book.report_misses = problem ? book.report_misses + 1 : 0;
  book.report_feedback = problem ? `## Report check\n${problem}.` : null;
  const forceFailure =
    problem && book.report_misses >= tdd.report_misses_before_failure
      ? `${problem} (${book.report_misses} iterations in a row)`
      : undefined;

  // The state file: restore a corrupted one, then append this iteration to its history.
  const statePath = resolve(workspace, tdd.state_file);
  let stateText = readOptional(statePath, 'absent') ?? null;
  let state = stateText === null ? undefined : parseTddState(stateText);
  if (!state?.ok) {
    const restored = restoreState(workspace, tdd);
    if (restored) {
      warnings.push(
        `${tdd.state_file} was ${stateText === null ? 'deleted' : `corrupted (${state?.problems.join('; ')})`}; ${restored}`,
      );
      stateText = readOptional(statePath, 'absent') ?? null;
      state = stateText === null ? undefined : parseTddState(stateText);
    } else {
      warnings.push(
        `${tdd.state_file} is ${stateText === null ? 'missing' : 'corrupted'} and there is no good copy to restore`,
      );
    }
  }
  if (stateText !== null && state?.ok) {
    const testsWord = input.tests ? (input.tests.passed ? 'passed' : 'failed') : 'not run';
    const updated = appendHistory(stateText, {
      iteration: input.iteration,
      date: input.now,
      status: check?.status ?? (fresh ? 'UNKNOWN' : 'NO REPORT'),
      tests: testsWord,
      summary: input.summary.split('\n').find((l) => l.trim()) ?? '',
    });
    writeFileAtomicSync(statePath, updated);
    writeFileAtomicSync(own.goodState, updated);
    state = parseTddState(updated);
  }

  // Stuck: the same failing tests, run after run.
  let stuck: string | undefined;
  if (input.tests) {
    const signature = failingTestSignature(input.tests.output, { assumeFailed: !input.tests.passed });
    const streak = nextFailureStreak(
      { signature: book.last_signature, repeats: book.signature_repeats },
      signature,
    );
    book.last_signature = streak.signature;
    book.signature_repeats = streak.repeats;
    if (isStuck(streak, tdd.stuck_iterations)) {
      stuck = `stuck: the same tests have failed ${streak.repeats} iterations in a row (${(streak.signature ?? '').split('\n').slice(0, 3).join(', ')}); see ${tdd.report_file} and the test report, then help the agent`;
    }
  }

  // Reports are gathered by Ralph and archived every archive_after iterations.
  if (report !== null && fresh)
    appendText(own.reports, `\n<!-- iteration ${input.iteration} -->\n${report.trimEnd()}\n`);
  if (shouldArchive(input.iteration, tdd.archive_after) && existsSync(own.reports)) {
    const archiveDir = resolve(workspace, tdd.archive_dir);
    mkdirSync(archiveDir, { recursive: true });
    moveFile(own.reports, join(archiveDir, archiveName(input.iteration, tdd.report_file)));
  }

  const creativeOpen = state ? openCreativeTasks(state) : 0;
  const task = state?.currentTask.trim() ?? '';
  const mode = decideMode({
    testsPassed: input.tests ? input.tests.passed : null,
    creativeTasksOpen: creativeOpen,
    engineeringWorkLeft: task.length > 0 && !/^(none|done|n\/a|-|nothing)\.?$/i.test(task),
  });
  return {
    book,
    reportMissing,
    forceFailure,
    stuck,
    warnings,
    modeEvent: mode === 'engineering' ? 'tdd.engineering' : mode === 'creative' ? 'tdd.creative' : null,
    completionBlockers:
      creativeOpen > 0 ? [`${creativeOpen} creative task(s) still open in ${tdd.state_file}`] : [],
  };
}

/** Files the iteration changed outside `tdd.allowed_paths` (Ralph's own loop files excepted). */
export function tddScopeViolations(config: RalphConfig, files: readonly string[] | null): string[] {
  const tdd = config.tdd;
  if (!tdd || !files || tdd.allowed_paths.length === 0) return [];
  const own = tddOwnPaths({
    stateFile: tdd.state_file,
    reportFile: tdd.report_file,
    archiveDir: tdd.archive_dir,
    testsReportFile: config.gates.tests?.report_file,
  });
  return scopeViolations([...files], tdd.allowed_paths, own);
}
