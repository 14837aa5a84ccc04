import { readJsonl, type SkippedLine, skippedLines } from '../../state/io/jsonl.ts';
import {
  array,
  boolean,
  checkedLine,
  looseObject,
  nullable,
  number,
  oneOf,
  optional,
  string,
} from '../../state/loop-state/checks.ts';
import { ralphPaths } from '../../state/paths.ts';
import { formatFigure } from '../format.ts';

/** One line of `.ralph/metric/attempts.jsonl` as the metric loop writes it (docs/guide/optimize.md). */
export interface MetricAttemptLine {
  run_id: string;
  at: string;
  /** 0: the baseline, measured at run start. */
  iteration: number;
  kept: boolean;
  verdict: string;
  idea?: string | null;
  values?: number[];
  value?: number;
  spread?: number;
  commit?: string | null;
  /** The baseline line only: what was measured. */
  command?: string;
  direction?: 'min' | 'max';
  target?: number | null;
}

/** The attempts file of one workspace. */
export interface WorkspaceAttempts {
  workspace: string;
  lines: MetricAttemptLine[];
  /** Lines that were not attempts (skipped; the reader says so). */
  skipped?: SkippedLine[];
}

/** One measured (or failed) attempt of a metric run, as `ralph stats --json` gives it. */
export interface MetricPoint {
  /** 1, 2, …: the attempt's place in its run. */
  attempt: number;
  iteration: number;
  at: string;
  /** The median of the repeats; null when the measurement failed. */
  value: number | null;
  values: number[];
  kept: boolean;
  /** `kept`, `not_kept` or `measure_failed`. */
  verdict: string;
  /** The best value once this attempt was decided (the baseline before the first kept one). */
  best_so_far: number;
  idea: string | null;
}

/** One run of the metric loop: what it measured, where it started, the best it kept, every attempt. */
export interface MetricSeries {
  workspace: string;
  run_id: string;
  /** `metric.command`, `direction` and `target` as the run measured them; null in files older than these fields. */
  command: string | null;
  direction: 'min' | 'max' | null;
  target: number | null;
  baseline: { value: number; spread: number; commit: string | null; at: string };
  /** The best kept result so far; iteration 0 is the baseline. */
  best: { value: number; iteration: number; commit: string | null };
  attempts: number;
  kept: number;
  /** Attempts not kept (rolled back), `measure_failed` ones included. */
  rolled_back: number;
  measure_failed: number;
  /** How much better the best is than the baseline, in the metric's units (0 when nothing was kept). */
  improvement: number;
  /** `improvement` as a percentage of the baseline's magnitude; null when the baseline is 0. */
  improvement_pct: number | null;
  points: MetricPoint[];
}

// Every field the charts and `ralph stats` touch (a commit is sliced, values averaged): the agent
// can append to the file, so a line with another type is skipped like a torn one.
const num = number();
const nullableStr = nullable(string());
const attemptShape = looseObject({
  run_id: string(),
  at: string(),
  iteration: number({ int: true }),
  kept: boolean,
  verdict: string(),
  idea: optional(nullableStr),
  values: optional(array(num)),
  value: optional(num),
  spread: optional(num),
  commit: optional(nullableStr),
  command: optional(string()),
  direction: optional(oneOf(['min', 'max'])),
  target: optional(nullable(num)),
});
const attemptLine = checkedLine<MetricAttemptLine>(attemptShape, 'a metric attempt');

/** The attempts of a workspace; a damaged line is skipped (the rest still chart). */
export function readMetricAttempts(workspace: string): WorkspaceAttempts {
  const read = readJsonl(ralphPaths(workspace).metricAttempts, attemptLine);
  return { workspace, lines: read.records, skipped: skippedLines(read.items) };
}

/** `a` is better than `b` in `direction`; with no direction known, the later kept value wins. */
function better(a: number, b: number, direction: 'min' | 'max' | null): boolean {
  if (direction === null) return true;
  return direction === 'min' ? a < b : a > b;
}

/** The direction of a file written before the baseline said it: the first kept improvement's sign. */
function inferredDirection(baseline: number, attempts: MetricAttemptLine[]): 'min' | 'max' | null {
  const first = attempts.find((a) => a.kept && a.value !== undefined && a.value !== baseline);
  if (first?.value === undefined) return null;
  return first.value < baseline ? 'min' : 'max';
}

/** One run's series: best-so-far over all its attempts, points from `since` on. */
function runSeries(
  workspace: string,
  baseLine: MetricAttemptLine,
  lines: MetricAttemptLine[],
  since: number | undefined,
): MetricSeries | undefined {
  const baseline = baseLine.value ?? Number.NaN;
  if (!Number.isFinite(baseline)) return undefined;
  const all = lines.filter((l) => l.iteration > 0).sort((a, b) => a.iteration - b.iteration);
  const direction = baseLine.direction ?? inferredDirection(baseline, all);
  let best = { value: baseline, iteration: 0, commit: baseLine.commit ?? null };
  const points = all.map((l, i): MetricPoint => {
    const value = l.value ?? null;
    if (l.kept && value !== null && better(value, best.value, direction))
      best = { value, iteration: l.iteration, commit: l.commit ?? null };
    return {
      attempt: i + 1,
      iteration: l.iteration,
      at: l.at,
      value,
      values: l.values ?? [],
      kept: l.kept,
      verdict: l.verdict,
      best_so_far: best.value,
      idea: l.idea ?? null,
    };
  });
  const shown = points.filter((p) => since === undefined || Date.parse(p.at) >= since);
  if (shown.length === 0 && since !== undefined && !(Date.parse(baseLine.at) >= since)) return undefined;
  const sign = direction === 'max' ? 1 : -1;
  const improvement = direction === null ? Math.abs(best.value - baseline) : sign * (best.value - baseline);
  const kept = shown.filter((p) => p.kept).length;
  return {
    workspace,
    run_id: baseLine.run_id,
    command: baseLine.command ?? null,
    direction,
    target: baseLine.target ?? null,
    baseline: {
      value: baseline,
      spread: baseLine.spread ?? 0,
      commit: baseLine.commit ?? null,
      at: baseLine.at,
    },
    best,
    attempts: shown.length,
    kept,
    rolled_back: shown.length - kept,
    measure_failed: shown.filter((p) => p.value === null).length,
    improvement,
    improvement_pct: baseline === 0 ? null : (improvement / Math.abs(baseline)) * 100,
    points: shown,
  };
}

/**
 * The metric runs of the workspaces' attempts files, oldest first. A run counts when its baseline
 * or one of its attempts is in the window (`since`, epoch ms); the baseline is always its reference,
 * and best-so-far counts the attempts before the window too. Pure.
 */
export function metricSeries(files: readonly WorkspaceAttempts[], since?: number): MetricSeries[] {
  const series: MetricSeries[] = [];
  for (const { workspace, lines } of files) {
    const byRun = new Map<string, MetricAttemptLine[]>();
    for (const l of lines) {
      const run = byRun.get(l.run_id);
      if (run) run.push(l);
      else byRun.set(l.run_id, [l]);
    }
    for (const runLines of byRun.values()) {
      const baseLine = runLines.find((l) => l.iteration === 0);
      const s = baseLine && runSeries(workspace, baseLine, runLines, since);
      if (s) series.push(s);
    }
  }
  return series.sort((a, b) => a.baseline.at.localeCompare(b.baseline.at));
}

/** `min: lower is better`, `max: higher is better`, or `direction not recorded`. */
export function metricGoal(direction: MetricSeries['direction']): string {
  if (direction === null) return 'direction not recorded';
  return direction === 'min' ? 'min: lower is better' : 'max: higher is better';
}

/** Where the best came from: `the baseline`, or `iteration 4, commit 6f78a8bafcde`. */
export function bestOrigin(best: MetricSeries['best']): string {
  if (best.iteration === 0) return 'the baseline';
  return `iteration ${best.iteration}${best.commit ? `, commit ${best.commit.slice(0, 12)}` : ''}`;
}

/** The improvement over the baseline in words: `21 (20.96% lower)`, or `none kept yet`. */
export function improvementText(s: MetricSeries): string {
  if (s.best.iteration === 0) return 'none kept yet';
  const way = s.direction === null ? 'better' : s.direction === 'min' ? 'lower' : 'higher';
  const pct =
    s.improvement_pct === null ? '' : ` (${formatFigure(Number(s.improvement_pct.toFixed(2)))}% ${way})`;
  return `${formatFigure(s.improvement)}${pct}`;
}
