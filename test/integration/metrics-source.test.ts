import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMetricsSource, MAX_RECORD_BYTES_PER_SCRAPE } from '../../src/dashboard/metrics-data.ts';
import { recordInRegistry } from '../../src/state/run-registry.ts';
import { iterationRecord, tokens } from '../helpers/iteration-record.ts';
import { removeWhenDone } from '../helpers/workspace.ts';

/** A registered workspace whose run `r1` stopped (no state.json: the registry line names the run). */
function setup(): { env: NodeJS.ProcessEnv; records: string; workspace: string } {
  const root = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-metrics-')));
  const env = { XDG_STATE_HOME: join(root, 'state') };
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.ralph', 'runs', 'r1'), { recursive: true });
  const at = new Date(0).toISOString();
  const line = { workspace, run_id: 'r1', pid: 1, started_at: at, updated_at: at };
  recordInRegistry(env, { ...line, status: 'running', stop_reason: null });
  recordInRegistry(env, { ...line, status: 'stopped', stop_reason: 'max_cost' });
  return { env, workspace, records: join(workspace, '.ralph', 'runs', 'r1', 'iterations.jsonl') };
}

const rec = (iteration: number, pad = '') =>
  `${JSON.stringify(iterationRecord({ iteration, cost_usd: 0.5, tokens: tokens(2), stderr_tail: pad }))}\n`;

/** The summed value of every series of `name` for the workspace. */
function total(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('the /metrics source over the files', () => {
  it('folds records appended between scrapes once each; a replaced file is folded again from its start', () => {
    const { env, records, workspace } = setup();
    const scrape = createMetricsSource(env);
    writeFileSync(records, rec(1) + rec(2));
    let text = scrape();
    expect(total(text, 'ralph_iterations_total')).toBe(2);
    expect(text).toContain(`ralph_stops_total{workspace=${JSON.stringify(workspace)},reason="max_cost"} 1`);
    const fourth = rec(4);
    appendFileSync(records, `${rec(3)}${fourth.slice(0, 20)}`);
    text = scrape();
    expect(total(text, 'ralph_iterations_total')).toBe(3);
    expect(total(text, 'ralph_cost_usd_total')).toBe(1.5);
    // The torn line's end arrives: it counts then, once.
    appendFileSync(records, fourth.slice(20));
    expect(total(scrape(), 'ralph_iterations_total')).toBe(4);
    expect(total(scrape(), 'ralph_iterations_total')).toBe(4);
    writeFileSync(records, rec(1));
    expect(total(scrape(), 'ralph_iterations_total')).toBe(1);
  });

  it(`reads at most ${MAX_RECORD_BYTES_PER_SCRAPE} bytes of a run's records per scrape, and catches up over the next ones`, () => {
    const { env, records } = setup();
    const pad = 'x'.repeat(100_000);
    const n = Math.ceil((MAX_RECORD_BYTES_PER_SCRAPE * 1.5) / 100_000);
    writeFileSync(records, Array.from({ length: n }, (_, i) => rec(i + 1, pad)).join(''));
    const scrape = createMetricsSource(env);
    const first = total(scrape(), 'ralph_iterations_total');
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(n);
    expect(total(scrape(), 'ralph_iterations_total')).toBe(n);
  });
});
