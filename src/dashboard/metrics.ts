import type { IterationRecord } from '../state/iteration-record-shape.ts';
import { LIVE_STATUSES } from '../state/loop-state.ts';
import { emptyHistogram, type HistogramValue, type MetricFamily, observe } from './prometheus-text.ts';
import { GROUPS, type Group } from './run-data.ts';

/** Iteration durations' bucket bounds in seconds: agent turns take from seconds to an hour. */
export const DURATION_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600] as const;

/** Token kinds as recorded (`total` is their sum, left to PromQL). */
export const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write'] as const;

/** What one hat on one backend spent in a run. */
export interface RouteTotals {
  hat: string;
  backend: string;
  /** Iterations per verdict. */
  verdicts: Record<string, number>;
  tokens: Record<(typeof TOKEN_KINDS)[number], number>;
  costUsd: number;
  durations: HistogramValue;
}

/** A run's iteration records folded (incrementally: each record is added once). */
export interface RunTotals {
  /** By hat and backend. */
  routes: Map<string, RouteTotals>;
  /** gates.review turns (their backend is not in the record). */
  reviewCostUsd: number;
}

export function emptyRunTotals(): RunTotals {
  return { routes: new Map(), reviewCostUsd: 0 };
}

/** Folds one iteration record into `t` (in place). */
export function addRecord(t: RunTotals, r: IterationRecord): void {
  const hat = r.hat ?? '';
  const backend = String(r.backend ?? '');
  const key = JSON.stringify([hat, backend]);
  const route = t.routes.get(key) ?? {
    hat,
    backend,
    verdicts: {},
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
    costUsd: 0,
    durations: emptyHistogram(DURATION_BUCKETS),
  };
  const verdict = String(r.verdict ?? 'unknown');
  route.verdicts[verdict] = (route.verdicts[verdict] ?? 0) + 1;
  for (const kind of TOKEN_KINDS) route.tokens[kind] += finite(r.tokens?.[kind]);
  route.costUsd += finite(r.cost_usd);
  observe(route.durations, DURATION_BUCKETS, finite(r.duration_ms) / 1000);
  t.routes.set(key, route);
  t.reviewCostUsd += finite(r.review?.cost_usd);
}

function finite(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** One workspace as a scrape sees it: its current run's state and totals, and its stops over time. */
export interface WorkspaceMetrics {
  workspace: string;
  group: Group;
  /** Epoch seconds of the run's last state write (or registry line). */
  updatedAt: number;
  totals: RunTotals;
  /** Stops recorded in the run registry for this workspace, by reason (every run, not only the current). */
  stops: Record<string, number>;
}

export interface MetricsSnapshot {
  version: string;
  node: string;
  workspaces: readonly WorkspaceMetrics[];
}

/** The metric families of a snapshot (pure); `docs/operations/monitoring.md` lists each. */
export function metricFamilies(s: MetricsSnapshot): MetricFamily[] {
  const routes = s.workspaces.flatMap((w) =>
    [...w.totals.routes.values()].map((r) => ({
      w,
      r,
      labels: { workspace: w.workspace, hat: r.hat, backend: r.backend },
    })),
  );
  return [
    {
      name: 'ralph_build_info',
      help: 'Always 1; the version of Ralph serving the metrics and of Node.',
      type: 'gauge',
      samples: [{ labels: { version: s.version, node: s.node }, value: 1 }],
    },
    {
      name: 'ralph_runs',
      help: "1 for the state the workspace's current run is in, 0 for the others (the dashboard's groups).",
      type: 'gauge',
      samples: s.workspaces.flatMap((w) =>
        GROUPS.map((state) => ({
          labels: { workspace: w.workspace, state },
          value: w.group === state ? 1 : 0,
        })),
      ),
    },
    {
      name: 'ralph_run_updated_timestamp_seconds',
      help: "When the workspace's run last wrote its state (Unix time).",
      type: 'gauge',
      samples: s.workspaces.map((w) => ({ labels: { workspace: w.workspace }, value: w.updatedAt })),
    },
    {
      name: 'ralph_iterations_total',
      help: "Finished iterations of the workspace's current run, by hat, backend and verdict.",
      type: 'counter',
      samples: routes.flatMap(({ r, labels }) =>
        Object.entries(r.verdicts).map(([verdict, n]) => ({ labels: { ...labels, verdict }, value: n })),
      ),
    },
    {
      name: 'ralph_tokens_total',
      help: "Tokens the agent used in the workspace's current run, by hat, backend and kind.",
      type: 'counter',
      samples: routes.flatMap(({ r, labels }) =>
        TOKEN_KINDS.map((kind) => ({ labels: { ...labels, kind }, value: r.tokens[kind] })),
      ),
    },
    {
      name: 'ralph_cost_usd_total',
      help: "What the agent's iterations of the workspace's current run cost, in US dollars, by hat and backend.",
      type: 'counter',
      samples: routes.map(({ r, labels }) => ({ labels, value: r.costUsd })),
    },
    {
      name: 'ralph_review_cost_usd_total',
      help: "What the gates.review turns of the workspace's current run cost, in US dollars.",
      type: 'counter',
      samples: s.workspaces.map((w) => ({
        labels: { workspace: w.workspace },
        value: w.totals.reviewCostUsd,
      })),
    },
    {
      name: 'ralph_iteration_duration_seconds',
      help: "How long the iterations of the workspace's current run took, by hat and backend.",
      type: 'histogram',
      bounds: DURATION_BUCKETS,
      samples: routes.map(({ r, labels }) => ({ labels, value: r.durations })),
    },
    {
      name: 'ralph_stops_total',
      help: 'Runs that stopped in the workspace (every run the registry remembers), by stop reason.',
      type: 'counter',
      samples: s.workspaces.flatMap((w) =>
        Object.entries(w.stops).map(([reason, n]) => ({
          labels: { workspace: w.workspace, reason },
          value: n,
        })),
      ),
    },
  ];
}

/**
 * Stops per workspace and reason from the registry's lines: a run's end line carries its stop
 * reason (a start line, status running, never counts, even when it repeats a resumed run's last stop).
 */
export function stopsByWorkspace(
  lines: readonly { workspace: string; status: string; stop_reason: string | null }[],
): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const l of lines) {
    if (l.stop_reason === null || (LIVE_STATUSES as readonly string[]).includes(l.status)) continue;
    const counts = out.get(l.workspace) ?? {};
    counts[l.stop_reason] = (counts[l.stop_reason] ?? 0) + 1;
    out.set(l.workspace, counts);
  }
  return out;
}
