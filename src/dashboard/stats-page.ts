import { formatCost, formatFigure, formatNumber } from '../observe/format.ts';
import { aggregateStats, type GroupStats, parseSince, type Stats } from '../observe/stats/aggregate-stats.ts';
import {
  bestOrigin,
  improvementText,
  type MetricSeries,
  metricGoal,
} from '../observe/stats/metric-series.ts';
import { readHistory } from '../observe/stats/run-history.ts';
import { skippedNotice } from '../state/io/jsonl.ts';
import { formatSpan } from '../state/io/time-format.ts';
import { barChart, esc } from './charts.ts';
import { metricChartSvg } from './metric-chart.ts';
import { layout } from './pages.ts';

const pct = (rate: number) => `${Math.round(rate * 100)}%`;

function groupTable(title: string, groups: GroupStats[]): string {
  return `<h2>by ${esc(title)}</h2><table class="stats-${esc(title)}"><tr><th>${esc(title)}</th><th>iterations</th><th>succeeded</th><th>failed</th><th>success</th><th>time</th><th>tokens</th><th>cost</th></tr>${groups
    .map(
      (g) =>
        `<tr><td>${esc(g.name)}</td><td>${g.iterations}</td><td>${g.succeeded}</td><td>${g.failed}</td><td>${pct(g.success_rate)}</td><td>${esc(formatSpan(g.duration_ms))}</td><td>${esc(formatNumber(g.tokens))}</td><td>${esc(formatCost(g.cost_usd))}</td></tr>`,
    )
    .join('')}</table>`;
}

/** Metric runs the page charts (the latest); `ralph stats --json` has every one. */
const METRIC_RUNS = 6;

/** The metric loop's runs: per run what it measured, baseline → best, and its chart of every attempt. */
function metricSection(series: MetricSeries[]): string {
  if (series.length === 0) return '';
  const shown = series.slice(-METRIC_RUNS);
  const earlier = series.length - shown.length;
  const runs = shown
    .map(
      (s, i) =>
        `<figure class="metric"><figcaption><code>${esc(s.command ?? 'metric')}</code> (${esc(metricGoal(s.direction))}) · run ${esc(s.run_id)} · ${esc(s.workspace)}<br>baseline ${esc(formatFigure(s.baseline.value))} → best ${esc(formatFigure(s.best.value))} (${esc(bestOrigin(s.best))}) · improvement ${esc(improvementText(s))} · ${s.attempts} attempts: ${s.kept} kept, ${s.rolled_back} rolled back${s.target === null ? '' : ` · target ${esc(formatFigure(s.target))}`}</figcaption>${metricChartSvg(s, `metric-${i}`)}</figure>`,
    )
    .join('');
  return `<h2>metric</h2>${earlier > 0 ? `<p class="muted">… ${earlier} earlier metric runs (<code>ralph stats --all --json</code> has them)</p>` : ''}<p class="muted">filled: kept · hollow: rolled back · ×: not measured · line: best so far · dashed: baseline and target</p>${runs}`;
}

/** The window links: all history, the last 24 hours, 7 and 30 days. */
function windows(current: string | undefined): string {
  const links = [
    ['all', undefined],
    ['24h', '24h'],
    ['7 days', '7d'],
    ['30 days', '30d'],
  ] as const;
  return `<p class="muted">${links
    .map(([label, since]) =>
      since === current
        ? `<b>${label}</b>`
        : `<a href="/stats${since ? `?since=${since}` : ''}">${label}</a>`,
    )
    .join(' · ')}</p>`;
}

/**
 * What `ralph stats --all` says, as charts: per run cost, iterations and time, coverage over time,
 * success per hat; then the tables and the stop reasons.
 */
export function statsPage(s: Stats, since: string | undefined, notices: readonly string[] = []): string {
  const skipped = notices.map((n) => `<p class="notice">${esc(n)}</p>`).join('');
  if (s.runs === 0)
    return layout(
      'stats',
      `${windows(since)}${skipped}<p>No iterations recorded in this window. <code>ralph run</code> records each one.</p>`,
    );
  const runLabels = s.per_run.map((r) => r.run_id);
  const t = s.tasks;
  const totals = `<p id="stats-totals">${s.runs} runs in ${s.workspaces.length} workspace${s.workspaces.length === 1 ? '' : 's'} · ${s.iterations} iterations · ${esc(formatSpan(s.duration_ms))} · tokens ${esc(formatNumber(s.tokens))} · cost ${esc(formatCost(s.cost_usd))} · ${t.source === 'tasks' ? 'tasks closed' : 'completed runs'} ${t.completed}${t.cost_per_completed_usd === null ? '' : ` (${esc(formatCost(t.cost_per_completed_usd))} each)`}${t.average_duration_ms === null ? '' : ` · average task ${esc(formatSpan(t.average_duration_ms))}`}</p>`;
  const coverage =
    s.coverage.length > 0
      ? barChart(
          'test coverage over time',
          s.coverage.map((c) => c.pct),
          s.coverage.map((c) => `${c.run_id} #${c.iteration}`),
          (v) => `${v}%`,
        )
      : '';
  const charts = `<div class="charts">${barChart(
    'cost per run',
    s.per_run.map((r) => r.cost_usd),
    runLabels,
    formatCost,
  )}${barChart(
    'iterations per run',
    s.per_run.map((r) => r.iterations),
    runLabels,
    (v) => String(v),
  )}${barChart(
    'time per run',
    s.per_run.map((r) => r.duration_ms),
    runLabels,
    formatSpan,
  )}${barChart(
    'success rate per hat',
    s.by_hat.map((g) => g.success_rate * 100),
    s.by_hat.map((g) => g.name),
    (v) => `${Math.round(v)}%`,
  )}${coverage}</div>`;
  const reasons = `<h2>stop reasons</h2><table class="stop-reasons">${Object.entries(s.stop_reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `<tr><td>${esc(reason)}</td><td>${n}</td></tr>`)
    .join('')}</table>`;
  return layout(
    'stats',
    `${windows(since)}${skipped}${totals}${charts}${metricSection(s.metric)}${groupTable('hat', s.by_hat)}${groupTable('backend', s.by_backend)}${groupTable('model', s.by_model)}${reasons}`,
  );
}

/** `GET /stats[?since=7d]`: every registered workspace's statistics, or why `since` is not a window. */
export function statsResponse(
  env: NodeJS.ProcessEnv,
  since: string | undefined,
  now: number,
): { html: string } | { error: string } {
  let from: number | undefined;
  try {
    from = since === undefined ? undefined : parseSince(since, now, '?since=');
  } catch (error) {
    return { error: (error as Error).message };
  }
  const history = readHistory(undefined, env, true);
  const notices = (history.damaged ?? []).map((d) => skippedNotice(d.file, d.skipped));
  return { html: statsPage(aggregateStats(history, from), since, notices) };
}
