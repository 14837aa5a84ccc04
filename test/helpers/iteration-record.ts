import type { IterationRecord } from '../../src/state/iteration-record-shape.ts';

/** Token totals with everything as input. */
export const tokens = (total: number) => ({ input: total, output: 0, cache_read: 0, cache_write: 0, total });

/** An iteration record of a plain successful iteration of run-1, with `over` on top. */
export function iterationRecord(over: Partial<IterationRecord> & { iteration: number }): IterationRecord {
  return {
    run_id: 'run-1',
    hat: null,
    backend: 'fake',
    started_at: '2024-01-02T03:04:05.000Z',
    finished_at: '2024-01-02T03:04:06.000Z',
    duration_ms: 1000,
    exit_code: 0,
    signal: null,
    killed_by: null,
    tokens: tokens(0),
    cost_usd: null,
    context_pct: null,
    model: null,
    head_before: null,
    head_after: null,
    events: [],
    files_changed: null,
    commit: null,
    gates: {},
    verdict: 'success',
    reason: null,
    consecutive_failures: 0,
    killed_processes: [],
    ...over,
  };
}
