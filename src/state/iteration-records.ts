import { join } from 'node:path';
import { anyJson, readJsonl } from './io/jsonl.ts';
import type { RalphPaths } from './paths.ts';

/** `.ralph/runs/<run-id>/iterations.jsonl`: one record per finished iteration. */
export function recordsFileOf(paths: RalphPaths, runId: string): string {
  return join(paths.runs, runId, 'iterations.jsonl');
}

/**
 * The records of a run's iterations.jsonl, in order; a torn line (a crash mid-append) is skipped,
 * a missing file is no records. Typed by the caller (the record type lives in observe/).
 */
export function readRecordLines<T extends { iteration: number }>(file: string): T[] {
  return readJsonl(file, anyJson).records.filter(
    (r): r is T => typeof (r as { iteration?: unknown } | null)?.iteration === 'number',
  );
}
