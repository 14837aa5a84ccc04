import { packageVersion } from '../paths-package.ts';
import { readJsonlSince } from '../state/io/jsonl.ts';
import { ralphPaths } from '../state/paths.ts';
import { recordLine, recordsFileOf } from '../state/records-file.ts';
import { readRegistry, readRegistryLines } from '../state/run-registry.ts';
import {
  addRecord,
  emptyRunTotals,
  type MetricsSnapshot,
  metricFamilies,
  type RunTotals,
  stopsByWorkspace,
} from './metrics.ts';
import { renderExposition } from './prometheus-text.ts';
import { summarize } from './run-data.ts';

/** A scrape covers the workspaces of the newest this many registry entries (one per workspace). */
export const MAX_METRICS_WORKSPACES = 200;
/** A scrape reads at most this much of one run's new records; a longer backlog is read over the next scrapes. */
export const MAX_RECORD_BYTES_PER_SCRAPE = 4 * 1024 * 1024;

interface Folded {
  offset: number;
  totals: RunTotals;
}

/**
 * A source of `/metrics` text for the registry of `env`. Each run's iterations.jsonl is folded
 * incrementally (the dashboard process keeps each run's totals and the byte offset read so far), so
 * a scrape reads only the records appended since the last one, bounded per run; the registry, each
 * state.json and lock are read again every time.
 */
export function createMetricsSource(env: NodeJS.ProcessEnv, now: () => number = Date.now): () => string {
  const folded = new Map<string, Folded>();
  const totalsOf = (file: string): RunTotals => {
    let f = folded.get(file) ?? { offset: 0, totals: emptyRunTotals() };
    const chunk = readJsonlSince(file, f.offset, recordLine, { maxBytes: MAX_RECORD_BYTES_PER_SCRAPE });
    // A file shorter than what was read was replaced: it is folded again from its start.
    if (chunk.nextOffset < f.offset) f = { offset: 0, totals: emptyRunTotals() };
    for (const r of chunk.records) addRecord(f.totals, r);
    f.offset = chunk.nextOffset;
    folded.set(file, f);
    return f.totals;
  };
  return () => {
    const at = now();
    const stops = stopsByWorkspace(readRegistryLines(env));
    const seen = new Set<string>();
    const workspaces = readRegistry(env)
      .slice(0, MAX_METRICS_WORKSPACES)
      .map((entry) => {
        const run = summarize(entry, at);
        const file = recordsFileOf(ralphPaths(run.workspace), run.runId);
        seen.add(file);
        return {
          workspace: run.workspace,
          group: run.group,
          updatedAt: Math.floor(Date.parse(run.updatedAt) / 1000) || 0,
          totals: totalsOf(file),
          stops: stops.get(run.workspace) ?? {},
        };
      });
    // Runs no longer current (a fresh run replaced them, or they fell off the cap) are let go.
    for (const file of folded.keys()) if (!seen.has(file)) folded.delete(file);
    const snapshot: MetricsSnapshot = { version: packageVersion(), node: process.version, workspaces };
    return renderExposition(metricFamilies(snapshot));
  };
}
