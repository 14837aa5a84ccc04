import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const record = JSON.parse(line) as T;
      if (typeof record?.iteration === 'number') out.push(record);
    } catch {
      // A torn line from a crash: not a record.
    }
  }
  return out;
}
