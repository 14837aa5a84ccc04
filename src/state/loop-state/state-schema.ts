import { RalphError } from '../../errors.ts';
import {
  array,
  boolean,
  type Check,
  describeProblems,
  looseObject,
  nullable,
  number,
  oneOf,
  optional,
  type Problem,
  present,
  record,
  string,
  withDefault,
} from './checks.ts';
import { RUN_STATUSES } from './fields.ts';
import { upgradeRollback } from './rollback-upgrade.ts';
import type { LoopState } from './shape.ts';

const count = number({ int: true, min: 0 });
const nullableString = nullable(string());
const int = number({ int: true });
const positiveInt = number({ int: true, positive: true });
const num = number();
const str = string();
const metricResult = looseObject({
  iteration: count,
  commit: nullableString,
  values: array(num),
  value: num,
  spread: num,
});
const metricNote = looseObject({ iteration: count, idea: str, value: nullable(num), why: str });
const emptyList = (): unknown[] => [];

/**
 * The fields every reader relies on (a state file that parses but lacks one would crash them);
 * fields older Ralph versions did not write get their defaults, unknown fields are kept. Checked
 * without zod (it stays off `ralph run`'s start); test/support/loop-state-zod.ts states the same
 * schema in zod, and a property test holds the two together.
 */
const stateShape: Check = looseObject({
  version: oneOf([1]),
  run_id: string(1),
  status: oneOf(RUN_STATUSES),
  started_at: str,
  updated_at: withDefault(str, () => ''),
  pid: int,
  workspace: str,
  backend: str,
  max_iterations: count,
  iterations: count,
  current: nullable(
    looseObject({
      number: positiveInt,
      hat: nullableString,
      started_at: str,
      agent_pid: nullable(int),
      agent_start_time: nullableString,
      head_before: optional(nullableString),
    }),
  ),
  consecutive_failures: count,
  cost_usd: number({ min: 0 }),
  tokens: looseObject({ input: count, output: count, cache_read: count, cache_write: count, total: count }),
  elapsed_ms: number({ min: 0 }),
  pending_events: withDefault(
    array(looseObject({ topic: str, payload: present, source: str, iteration: nullable(num) })),
    emptyList,
  ),
  events_file: string(1),
  events_offset: withDefault(count, () => 0),
  seen_topics: withDefault(array(str), emptyList),
  hat_activations: withDefault(record(count), () => ({})),
  recoveries: withDefault(count, () => 0),
  last_signature: withDefault(nullableString, () => null),
  signature_repeats: withDefault(count, () => 0),
  malformed_streak: withDefault(count, () => 0),
  idle: withDefault(boolean, () => false),
  idle_next_scan_at: optional(nullable(num)),
  parked: optional(nullable(looseObject({ until: num, message: str, transient: boolean }))),
  parks: optional(looseObject({ rateLimit: count, transient: count })),
  checklist: optional(nullableString),
  start_milestone: optional(nullableString),
  start_progress: optional(nullable(looseObject({ tasks_done: count, milestones_done: count }))),
  tdd: optional(
    looseObject({
      report_misses: count,
      report_feedback: nullableString,
      last_signature: nullableString,
      signature_repeats: count,
    }),
  ),
  last_record: optional(nullable(looseObject({ iteration: positiveInt }))),
  feedback: optional(nullableString),
  pending_stop: optional(nullable(looseObject({ reason: str, message: str, exit_code: int }))),
  control: optional(looseObject({ offset: count, consumed: array(str) })),
  guidance: optional(
    array(looseObject({ id: str, kind: oneOf(['guidance', 'answer', 'rejection']), text: str, source: str })),
  ),
  paused: optional(boolean),
  stop_requested: optional(boolean),
  waiting_for: optional(
    nullable(
      looseObject({ id: str, kind: oneOf(['question', 'approval']), text: str, expires_at: nullable(num) }),
    ),
  ),
  held_question: optional(
    nullable(
      looseObject({
        id: str,
        point: nullable(oneOf(['before_commit', 'before_push', 'before_complete'])),
        iteration: count,
        completes: nullableString,
        commit: nullable(
          looseObject({
            hat: nullableString,
            backend: str,
            summary: str,
            before: nullableString,
            tests: nullableString,
            repo_tests: optional(record(nullableString)),
          }),
        ),
        repos: optional(array(str)),
      }),
    ),
  ),
  uncommitted_changes: optional(boolean),
  last_green: optional(nullableString),
  repo_heads: optional(record(nullableString)),
  rollback: optional(
    nullable(
      looseObject({
        iteration: positiveInt,
        ref: string(1),
        trees: array(looseObject({ repo: nullableString, to: string(1), why: str, rescued: boolean })),
      }),
    ),
  ),
  human_timeout: optional(nullableString),
  metric: optional(
    looseObject({
      baseline: metricResult,
      best: metricResult,
      not_kept_streak: count,
      kept: array(metricNote),
      failed: array(metricNote),
    }),
  ),
  progress_marks: optional(looseObject({ tree: nullableString, tasks: str })),
  did_work: optional(boolean),
  fallback: optional(nullable(looseObject({ index: count, until: num }))),
  review: optional(
    looseObject({
      start_head: nullableString,
      rounds: array(looseObject({ iteration: num, approved: boolean, findings: array(str) })),
      cost_usd: num,
      tokens: num,
    }),
  ),
  protected: optional(looseObject({ globs: array(str), hashes: record(str) })),
  git_config: optional(looseObject({ settings: array(str), files: record(str) })),
  usage_samples: optional(
    array(looseObject({ hat: nullableString, backend: str, costUsd: num, tokens: num })),
  ),
  no_progress_streak: optional(count),
  limit_warnings: optional(record(num)),
  ladder: optional(
    record(looseObject({ rung: count, failures: count, successes: count, reason: nullableString })),
  ),
  cost_by_model: optional(record(number({ min: 0 }))),
  log_file: string(1),
  stop_reason: withDefault(nullableString, () => null),
  stop_message: withDefault(nullableString, () => null),
  exit_code: withDefault(nullable(int), () => null),
});

/**
 * A state file's text as a LoopState, checked against its schema; `where` names it in the error
 * (a path, or a checkpoint). Throws `state_corrupt` saying what is wrong and how to go on.
 */
export function parseLoopState(text: string, where: string): LoopState {
  try {
    if (text.trim() === '') throw new Error('the file is empty');
    const problems: Problem[] = [];
    const state = stateShape(upgradeRollback(JSON.parse(text)), [], problems);
    if (problems.length > 0) throw new Error(describeProblems(problems));
    return state as LoopState;
  } catch (cause) {
    throw new RalphError(
      'state_corrupt',
      `${where} is damaged (${(cause as Error).message}); nothing was changed — start over with \`ralph run --fresh\` (the damaged file is kept as state.json.corrupt-<time>), or restore it from a backup`,
      { cause },
    );
  }
}
