import { ExitCode } from '../../errors.ts';
import { formatCost, formatNumber } from '../../observe/format.ts';
import {
  aggregateStats,
  type GroupStats,
  parseSince,
  type Stats,
} from '../../observe/stats/aggregate-stats.ts';
import { readHistory } from '../../observe/stats/run-history.ts';
import { skippedNotice } from '../../state/io/jsonl.ts';
import { formatSpan } from '../../state/io/time-format.ts';
import { clip, columns, wrapLines } from '../../tui/text-fit.ts';
import { table } from '../agent-tools/tool-render.ts';
import { type CliIO, unicodeOutput } from '../io.ts';
import { metricStatsText } from './metric-stats-text.ts';

export interface StatsFlags {
  since?: string | undefined;
  json?: boolean | undefined;
  all?: boolean | undefined;
}

/** Every line of `ralph stats` fits a standard terminal. */
const COLUMNS = 80;

const pct = (rate: number) => `${Math.round(rate * 100)}%`;
const widest = (text: string) => Math.max(...text.split('\n').map(columns));

/** A table per hat, backend or model; names too long for 80 columns are cut with `…`. */
function groupTable(title: string, groups: GroupStats[]): string {
  const render = (nameWidth: number) =>
    table(
      [title, 'iters', 'ok', 'failed', 'rate', 'time', 'tokens', 'cost'],
      groups.map((g) => [
        clip(g.name, nameWidth),
        String(g.iterations),
        String(g.succeeded),
        String(g.failed),
        pct(g.success_rate),
        formatSpan(g.duration_ms),
        formatNumber(g.tokens),
        formatCost(g.cost_usd),
      ]),
    );
  const full = render(Number.POSITIVE_INFINITY);
  const over = widest(full) - COLUMNS;
  if (over <= 0) return full;
  return render(Math.max(title.length, 8, ...groups.map((g) => columns(g.name) - over)));
}

/**
 * The statistics as a person reads them: totals, tasks, stop reasons, the three tables, coverage,
 * the metric runs (`unicode`: their sparklines in block elements); no line is wider than 80 columns.
 */
export function statsText(s: Stats, unicode = false): string {
  const where = `${s.workspaces.length} workspace${s.workspaces.length === 1 ? '' : 's'}`;
  const window = s.since ? `since ${s.since}` : 'all history';
  const t = s.tasks;
  const what = t.source === 'tasks' ? 'tasks closed' : 'completed runs (no task closed: a run is a task)';
  const lines = [
    `${s.runs} run${s.runs === 1 ? '' : 's'} in ${where}, ${window}`,
    `iterations ${s.iterations} · time ${formatSpan(s.duration_ms)} · tokens ${formatNumber(s.tokens)} · cost ${formatCost(s.cost_usd)}`,
    `${what}: ${t.completed}, failed ${t.failed}`,
    `  average duration ${t.average_duration_ms === null ? '-' : formatSpan(t.average_duration_ms)} · cost per completed ${t.cost_per_completed_usd === null ? '-' : formatCost(t.cost_per_completed_usd)}`,
    `stop reasons: ${
      Object.entries(s.stop_reasons)
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([reason, n]) => `${reason} ${n}`)
        .join(', ') || '-'
    }`,
    '',
  ];
  const cov = s.coverage;
  const coverage =
    cov.length === 0
      ? 'coverage: no summary recorded (the tests gate records coverage/coverage-summary.json, coverage.json or lcov.info when it writes one)\n'
      : `coverage: ${cov.map((c) => `${c.pct}%`).join(' → ')} (latest ${cov.at(-1)?.source})\n`;
  const text = `${lines.join('\n')}\n${groupTable('hat', s.by_hat)}\n${groupTable('backend', s.by_backend)}\n${groupTable('model', s.by_model)}\n${coverage}${metricStatsText(s.metric, unicode, s.workspaces.length > 1, COLUMNS)}`;
  // Prose wraps at words (continuation lines indented); the tables and charts already fit.
  return wrapLines(text.split('\n'), COLUMNS).join('\n');
}

/** `ralph stats [--since D] [--json] [--all]`: what the runs of this workspace (or every one) took. */
export function statsCommand(flags: StatsFlags, io: CliIO, now = Date.now()): number {
  const since = flags.since === undefined ? undefined : parseSince(flags.since, now, '--since');
  const history = readHistory(io.cwd, io.env, flags.all === true);
  for (const d of history.damaged ?? []) io.err(`ralph: ${skippedNotice(d.file, d.skipped)}\n`);
  const stats = aggregateStats(history, since);
  if (flags.json) io.out(`${JSON.stringify(stats, null, 2)}\n`);
  else if (stats.runs === 0)
    io.out(
      `no runs ${flags.all ? 'in the registry' : `in ${io.cwd}`}${since === undefined ? '' : ` since ${new Date(since).toISOString()}`} (ralph run records each iteration in .ralph/runs/)\n`,
    );
  else io.out(statsText(stats, unicodeOutput(io)));
  return ExitCode.ok;
}
