import { join } from 'node:path';
import { readJsonl, type SkippedLine, skippedLines } from './io/jsonl.ts';
import type { IterationRecord } from './iteration-record-shape.ts';
import {
  array,
  boolean,
  type Check,
  checkedLine,
  looseObject,
  nullable,
  number,
  optional,
  string,
} from './loop-state/checks.ts';
import type { RalphPaths } from './paths.ts';

/** `.ralph/runs/<run-id>/iterations.jsonl`: one record per finished iteration. */
export function recordsFileOf(paths: RalphPaths, runId: string): string {
  return join(paths.runs, runId, 'iterations.jsonl');
}

const str = string();
const num = number();
const count = number({ int: true, min: 0 });
const strings = array(str);
const nullableStr = nullable(str);
const nullableNum = nullable(num);
const tokens = looseObject({ input: num, output: num, cache_read: num, cache_write: num, total: num });
const gateFields = {
  command: str,
  passed: boolean,
  exit_code: nullable(number({ int: true })),
  timed_out: boolean,
  duration_ms: num,
  coverage: optional(looseObject({ pct: num, source: str })),
};
const testsGate = looseObject({ ...gateFields, scope: str, files: optional(strings), why: optional(str) });
const gates = looseObject({ validate: optional(looseObject(gateFields)), tests: optional(testsGate) });
const rollback = looseObject({ ref: str, to: str });
const used = (max: Check) => looseObject({ used: num, max });
const decision = looseObject({
  route: looseObject({
    hat: nullableStr,
    backend: str,
    triggered_by: strings,
    model: optional(looseObject({ name: str, rung: num, rungs: num, scope: str, reason: str })),
  }),
  completion: nullable(looseObject({ accepted: boolean, reasons: strings })),
  gates: looseObject({ validate: optional(boolean), tests: optional(boolean) }),
  limits: looseObject({
    iterations: used(num),
    runtime_ms: used(nullableNum),
    cost_usd: used(nullableNum),
    tokens: used(nullableNum),
    consecutive_failures: used(num),
  }),
  stop: nullable(looseObject({ reason: str, message: str })),
});

/**
 * The one schema of an iteration record, for every reader (explain, stats, estimate, the dashboard,
 * /metrics, crash repair): the agent can append to iterations.jsonl, so a line is a record only
 * when every field a reader touches has its type. Hand-written like state.json's (checks.ts): the
 * dashboard and `ralph stats` check thousands of records.
 */
const recordShape: Check = looseObject({
  run_id: str,
  iteration: count,
  hat: nullableStr,
  backend: str,
  command: optional(str),
  started_at: str,
  finished_at: str,
  duration_ms: num,
  exit_code: nullable(number({ int: true })),
  signal: nullableStr,
  killed_by: nullableStr,
  tokens,
  cost_usd: nullableNum,
  cost_estimated: optional(boolean),
  context_pct: nullableNum,
  model: nullableStr,
  head_before: nullableStr,
  head_after: nullableStr,
  events: strings,
  files_changed: nullable(strings),
  commit: nullableStr,
  gates,
  tests_skipped: optional(str),
  verdict: str,
  reason: nullableStr,
  consecutive_failures: num,
  killed_processes: array(looseObject({ pid: num, command: str })),
  stderr_tail: optional(str),
  report_missing: optional(strings),
  scope_violations: optional(strings),
  guidance: optional(strings),
  questions: optional(strings),
  fallback_from: optional(str),
  review: optional(
    looseObject({ approved: boolean, findings: strings, round: num, cost_usd: num, tokens: num }),
  ),
  rollback: optional(rollback),
  tampered: optional(strings),
  git_config: optional(strings),
  index_flags_cleared: optional(strings),
  progress: optional(
    looseObject({ files: nullable(boolean), commit: boolean, tasks: boolean, events: boolean }),
  ),
  decision: optional(decision),
  pull_request: optional(looseObject({ number: num, url: str, status: str, milestone: str })),
  repos: optional(
    array(
      looseObject({
        name: str,
        path: str,
        files: strings,
        commit: nullableStr,
        gates: looseObject({ tests: optional(testsGate) }),
        push_error: optional(str),
        rollback: optional(rollback),
      }),
    ),
  ),
  approvals: optional(
    array(looseObject({ point: str, id: str, answer: str, by: str, reason: optional(str) })),
  ),
  wave: optional(
    looseObject({
      concurrency: num,
      members: array(
        looseObject({
          index: num,
          topic: str,
          verdict: str,
          reason: nullableStr,
          exit_code: nullable(number({ int: true })),
          killed_by: nullableStr,
          duration_ms: num,
          tokens: num,
          cost_usd: nullableNum,
          events: strings,
        }),
      ),
    }),
  ),
  sandbox: optional(
    looseObject({ mode: str, denials: array(looseObject({ path: str, rule: str, reason: str })) }),
  ),
});

/** A line of iterations.jsonl as a record, or why it is not one. */
export const recordLine = checkedLine<IterationRecord>(recordShape, 'an iteration record');

/** The records of a run and the lines that were not records (kept in the file, skipped). */
export interface RecordsRead {
  records: IterationRecord[];
  skipped: SkippedLine[];
}

/** A run's iterations.jsonl: a missing file is no records; a damaged line is skipped, and said. */
export function readRecords(file: string): RecordsRead {
  const { items, records } = readJsonl(file, recordLine);
  return { records, skipped: skippedLines(items) };
}
