import { UsageError } from '../../errors.ts';
import { parseDuration } from '../../state/io/time-format.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import type { Task } from '../../state/tasks/task.ts';
import { type MetricSeries, metricSeries } from './metric-series.ts';
import type { History } from './run-history.ts';

/** Iterations of one hat, backend or model: how many, how they ended, what they took. */
export interface GroupStats {
  name: string;
  iterations: number;
  /** Verdict success, complete or idle. */
  succeeded: number;
  /** Verdict failure or gate_tampered. */
  failed: number;
  /** succeeded / iterations (0 without iterations); the rest were cut short (limit, aborted, parked). */
  success_rate: number;
  failure_rate: number;
  duration_ms: number;
  tokens: number;
  cost_usd: number;
}

/** One coverage total the tests gate left, in time order. */
export interface CoveragePoint {
  at: string;
  run_id: string;
  iteration: number;
  pct: number;
  source: string;
}

/** `ralph stats --json` (documented in docs/operations/stats.md#json-shapes): keep it stable. */
export interface Stats {
  /** The window's start (ISO), or null for all history. */
  since: string | null;
  workspaces: string[];
  runs: number;
  iterations: number;
  duration_ms: number;
  tokens: number;
  cost_usd: number;
  /** Runs by how they ended; `running` for a run that has not ended. */
  stop_reasons: Record<string, number>;
  by_hat: GroupStats[];
  by_backend: GroupStats[];
  by_model: GroupStats[];
  /** Per run in the window, oldest first (the dashboard charts these). */
  per_run: {
    workspace: string;
    run_id: string;
    started_at: string;
    iterations: number;
    cost_usd: number;
    duration_ms: number;
    stop_reason: string | null;
  }[];
  tasks: {
    /** `tasks`: closed tasks of tasks.jsonl; `runs`: no task closed in the window, so a completed run is one task. */
    source: 'tasks' | 'runs';
    completed: number;
    failed: number;
    average_duration_ms: number | null;
    cost_per_completed_usd: number | null;
  };
  coverage: CoveragePoint[];
  /** The metric loop's runs in the window, oldest first (docs/operations/stats.md#the-metric-loops-attempts). */
  metric: MetricSeries[];
}

const SUCCESS = new Set(['success', 'complete', 'idle']);
const FAILURE = new Set(['failure', 'gate_tampered', 'rule_violation']);

/** A hat's name in the statistics (solo mode has none). */
export const SOLO = '(solo)';
const UNKNOWN_MODEL = '(not reported)';

/** Iterations grouped by `key`, largest group first (ties by name). */
export function groupStats(
  records: readonly IterationRecord[],
  key: (r: IterationRecord) => string,
): GroupStats[] {
  const groups = new Map<string, IterationRecord[]>();
  for (const r of records) {
    const group = groups.get(key(r));
    if (group) group.push(r);
    else groups.set(key(r), [r]);
  }
  return [...groups]
    .map(([name, rs]) => {
      const succeeded = rs.filter((r) => SUCCESS.has(r.verdict)).length;
      const failed = rs.filter((r) => FAILURE.has(r.verdict)).length;
      return {
        name,
        iterations: rs.length,
        succeeded,
        failed,
        success_rate: succeeded / rs.length,
        failure_rate: failed / rs.length,
        duration_ms: sum(rs.map((r) => r.duration_ms)),
        tokens: sum(rs.map((r) => r.tokens.total)),
        cost_usd: sum(rs.map((r) => r.cost_usd ?? 0)),
      };
    })
    .sort((a, b) => b.iterations - a.iterations || a.name.localeCompare(b.name));
}

export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * A window's start: a span back from now (`90m`, `12h`, `7d`, `2w`) or a date (`2026-11-01`, ISO
 * time). `name` is what the user typed it as (`--since`, the dashboard's `?since=`): the error names it.
 */
export function parseSince(value: string, now: number, name: string): number {
  const span = parseDuration(value);
  if (span !== undefined) return now - span;
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(at)) return at;
  throw new UsageError(
    `${name} expects a span back from now (90m, 12h, 7d, 2w) or a date (2026-11-01), got ${JSON.stringify(value)}`,
  );
}

const inWindow = (at: string | undefined, since: number | undefined) =>
  since === undefined || (at !== undefined && Date.parse(at) >= since);

/** Tasks closed in the window: their count, failures and mean time from start (else creation) to close. */
function taskFigures(tasks: readonly Task[], since: number | undefined) {
  const ended = tasks.filter((t) => t.closed !== undefined && inWindow(t.closed, since));
  const closed = ended.filter((t) => t.status === 'closed');
  const spans = closed.map((t) => Date.parse(t.closed as string) - Date.parse(t.started ?? t.created));
  const valid = spans.filter((s) => Number.isFinite(s) && s >= 0);
  return {
    completed: closed.length,
    failed: ended.filter((t) => t.status === 'failed').length,
    average_duration_ms: valid.length > 0 ? sum(valid) / valid.length : null,
  };
}

/**
 * The statistics of a history from `since` (epoch ms; undefined: all of it). Iterations count when
 * they started in the window; a run counts when one of its iterations does. Pure: totals are sums
 * of the records, and every grouping splits the same iterations.
 */
export function aggregateStats(history: History, since?: number): Stats {
  const runs = history.runs
    .map((run) => ({ ...run, records: run.records.filter((r) => inWindow(r.started_at, since)) }))
    .filter((run) => run.records.length > 0);
  const records = runs.flatMap((r) => r.records);
  const cost = sum(records.map((r) => r.cost_usd ?? 0));
  const stopReasons: Record<string, number> = {};
  for (const run of runs) {
    const reason = run.stop_reason ?? 'running';
    stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
  }
  const fromTasks = taskFigures(history.tasks, since);
  const completedRuns = runs.filter((r) => r.stop_reason === 'completed');
  const byTasks = fromTasks.completed > 0;
  const completed = byTasks ? fromTasks.completed : completedRuns.length;
  const runSpans = completedRuns.map((r) => sum(r.records.map((x) => x.duration_ms)));
  return {
    since: since === undefined ? null : new Date(since).toISOString(),
    workspaces: [...new Set(runs.map((r) => r.workspace))],
    runs: runs.length,
    iterations: records.length,
    duration_ms: sum(records.map((r) => r.duration_ms)),
    tokens: sum(records.map((r) => r.tokens.total)),
    cost_usd: cost,
    stop_reasons: stopReasons,
    by_hat: groupStats(records, (r) => r.hat ?? SOLO),
    by_backend: groupStats(records, (r) => r.backend),
    by_model: groupStats(records, (r) => r.model ?? UNKNOWN_MODEL),
    per_run: runs.map((r) => ({
      workspace: r.workspace,
      run_id: r.run_id,
      started_at: r.records[0]?.started_at ?? '',
      iterations: r.records.length,
      cost_usd: sum(r.records.map((x) => x.cost_usd ?? 0)),
      duration_ms: sum(r.records.map((x) => x.duration_ms)),
      stop_reason: r.stop_reason,
    })),
    tasks: {
      source: byTasks ? 'tasks' : 'runs',
      completed,
      failed: byTasks
        ? fromTasks.failed
        : runs.filter((r) => r.stop_reason !== null && r.stop_reason !== 'completed').length,
      average_duration_ms: byTasks
        ? fromTasks.average_duration_ms
        : runSpans.length > 0
          ? sum(runSpans) / runSpans.length
          : null,
      cost_per_completed_usd: completed > 0 ? cost / completed : null,
    },
    coverage: records
      .flatMap((r) => {
        const c = r.gates.tests?.coverage;
        return c
          ? [{ at: r.finished_at, run_id: r.run_id, iteration: r.iteration, pct: c.pct, source: c.source }]
          : [];
      })
      .sort((a, b) => a.at.localeCompare(b.at)),
    metric: metricSeries(history.metric ?? [], since),
  };
}
