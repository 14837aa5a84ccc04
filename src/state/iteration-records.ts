import { join } from 'node:path';
import { jsonWhere, readJsonl } from './io/jsonl.ts';
import type { RalphPaths } from './paths.ts';

/** `.ralph/runs/<run-id>/iterations.jsonl`: one record per finished iteration. */
export function recordsFileOf(paths: RalphPaths, runId: string): string {
  return join(paths.runs, runId, 'iterations.jsonl');
}

/** A line of iterations.jsonl that is a record (a JSON object with its iteration number). */
export const recordLine = jsonWhere(
  (r): r is { iteration: number } => typeof (r as { iteration?: unknown } | null)?.iteration === 'number',
  'an iteration record',
);

/**
 * The records of a run's iterations.jsonl, in order; a torn line (a crash mid-append) is skipped,
 * a missing file is no records. Typed by the caller (the record type lives in observe/).
 */
export function readRecordLines<T extends { iteration: number }>(file: string): T[] {
  return readJsonl(file, recordLine).records as T[];
}
