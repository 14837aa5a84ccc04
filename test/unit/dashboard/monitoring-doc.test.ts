import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addRecord, emptyRunTotals, metricFamilies } from '../../../src/dashboard/metrics.ts';
import type { IterationRecord } from '../../../src/state/iteration-record-shape.ts';
import { ROOT } from '../../helpers/workspace.ts';

/** monitoring.md's metrics table: each metric's name and the labels the page says it carries. */
function documentedLabels(): Map<string, string[]> {
  const page = readFileSync(join(ROOT, 'docs', 'operations', 'monitoring.md'), 'utf8');
  const rows = [...page.matchAll(/^\| `(ralph_[a-z_]+)` \| [a-z]+ \| ([^|]*) \|/gm)];
  return new Map(
    rows.map((m) => [
      m[1] as string,
      [...(m[2] as string).matchAll(/`([a-z_]+)`/g)].map((l) => l[1] as string),
    ]),
  );
}

/** The label names each family's samples carry, from a snapshot with one workspace, one iteration and one stop. */
function servedLabels(): Map<string, string[]> {
  const totals = emptyRunTotals();
  addRecord(totals, {
    hat: 'builder',
    backend: 'claude',
    verdict: 'success',
    cost_usd: 0.1,
    duration_ms: 1000,
    tokens: { input: 1, output: 1, cache_read: 0, cache_write: 0, total: 2 },
  } as unknown as IterationRecord);
  const families = metricFamilies({
    version: '1.2.3',
    node: 'v20',
    workspaces: [{ workspace: '/w', group: 'completed', updatedAt: 5, totals, stops: { completed: 1 } }],
  });
  return new Map(
    families.map((f) => [f.name, [...new Set(f.samples.flatMap((s) => Object.keys(s.labels)))]]),
  );
}

describe('docs/operations/monitoring.md against the metrics served', () => {
  it('lists every metric with exactly the labels its series carry', () => {
    const served = servedLabels();
    expect(served.size).toBeGreaterThan(5);
    expect(Object.fromEntries(documentedLabels())).toEqual(Object.fromEntries(served));
  });

  it('says which series carry `workspace`: all but ralph_build_info', () => {
    const without = [...servedLabels()].filter(([, labels]) => !labels.includes('workspace')).map(([n]) => n);
    expect(without).toEqual(['ralph_build_info']);
    const page = readFileSync(join(ROOT, 'docs', 'operations', 'monitoring.md'), 'utf8');
    expect(page.replace(/\s+/g, ' ')).toContain('Every series but `ralph_build_info`');
  });
});
