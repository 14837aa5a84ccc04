import { z } from 'zod';
import { RalphError } from '../../src/errors.ts';
import { RUN_STATUSES } from '../../src/state/loop-state/fields.ts';
import { upgradeRollback } from '../../src/state/loop-state/rollback-upgrade.ts';
import type { LoopState, RunStatus } from '../../src/state/loop-state.ts';

const count = z.number().int().min(0);
const nullableString = z.string().nullable();
const metricResult = z.looseObject({
  iteration: count,
  commit: nullableString,
  values: z.array(z.number()),
  value: z.number(),
  spread: z.number(),
});
const metricNote = z.looseObject({
  iteration: count,
  idea: z.string(),
  value: z.number().nullable(),
  why: z.string(),
});

/**
 * state.json's schema as zod states it: the spec that src/state/loop-state/state-schema.ts (hand-written,
 * so `ralph run` starts without zod) must match. The fields every reader relies on (a state file that parses but lacks one would crash them);
 * fields older Ralph versions did not write get their defaults, unknown fields are kept.
 */
const stateShape = z.looseObject({
  version: z.literal(1),
  run_id: z.string().min(1),
  status: z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]),
  started_at: z.string(),
  updated_at: z.string().default(''),
  pid: z.number().int(),
  workspace: z.string(),
  backend: z.string(),
  max_iterations: count,
  iterations: count,
  current: z
    .looseObject({
      number: z.number().int().positive(),
      hat: nullableString,
      started_at: z.string(),
      agent_pid: z.number().int().nullable(),
      agent_start_time: nullableString,
      head_before: nullableString.optional(),
    })
    .nullable(),
  consecutive_failures: count,
  cost_usd: z.number().min(0),
  tokens: z.looseObject({ input: count, output: count, cache_read: count, cache_write: count, total: count }),
  elapsed_ms: z.number().min(0),
  pending_events: z
    .array(
      z.looseObject({
        topic: z.string(),
        payload: z.unknown(),
        source: z.string(),
        iteration: z.number().nullable(),
      }),
    )
    .default([]),
  events_file: z.string().min(1),
  events_offset: count.default(0),
  seen_topics: z.array(z.string()).default([]),
  hat_activations: z.record(z.string(), count).default({}),
  recoveries: count.default(0),
  last_signature: nullableString.default(null),
  signature_repeats: count.default(0),
  malformed_streak: count.default(0),
  idle: z.boolean().default(false),
  idle_next_scan_at: z.number().nullable().optional(),
  parked: z
    .looseObject({ until: z.number(), message: z.string(), transient: z.boolean() })
    .nullable()
    .optional(),
  parks: z.looseObject({ rateLimit: count, transient: count }).optional(),
  checklist: nullableString.optional(),
  start_milestone: nullableString.optional(),
  start_progress: z.looseObject({ tasks_done: count, milestones_done: count }).nullable().optional(),
  tdd: z
    .looseObject({
      report_misses: count,
      report_feedback: nullableString,
      last_signature: nullableString,
      signature_repeats: count,
    })
    .optional(),
  last_record: z.looseObject({ iteration: z.number().int().positive() }).nullable().optional(),
  feedback: nullableString.optional(),
  pending_stop: z
    .looseObject({ reason: z.string(), message: z.string(), exit_code: z.number().int() })
    .nullable()
    .optional(),
  control: z.looseObject({ offset: count, consumed: z.array(z.string()) }).optional(),
  guidance: z
    .array(
      z.looseObject({
        id: z.string(),
        kind: z.enum(['guidance', 'answer', 'rejection']),
        text: z.string(),
        source: z.string(),
      }),
    )
    .optional(),
  paused: z.boolean().optional(),
  stop_requested: z.boolean().optional(),
  waiting_for: z
    .looseObject({
      id: z.string(),
      kind: z.enum(['question', 'approval']),
      text: z.string(),
      expires_at: z.number().nullable(),
    })
    .nullable()
    .optional(),
  held_question: z
    .looseObject({
      id: z.string(),
      point: z.enum(['before_commit', 'before_push', 'before_complete']).nullable(),
      iteration: count,
      completes: nullableString,
      commit: z
        .looseObject({
          hat: nullableString,
          backend: z.string(),
          summary: z.string(),
          before: nullableString,
          tests: nullableString,
          repo_tests: z.record(z.string(), nullableString).optional(),
        })
        .nullable(),
      repos: z.array(z.string()).optional(),
    })
    .nullable()
    .optional(),
  uncommitted_changes: z.boolean().optional(),
  last_green: nullableString.optional(),
  repo_heads: z.record(z.string(), nullableString).optional(),
  rollback: z
    .looseObject({
      iteration: z.number().int().positive(),
      ref: z.string().min(1),
      trees: z.array(
        z.looseObject({ repo: nullableString, to: z.string().min(1), why: z.string(), rescued: z.boolean() }),
      ),
    })
    .nullable()
    .optional(),
  human_timeout: z.string().nullable().optional(),
  metric: z
    .looseObject({
      baseline: metricResult,
      best: metricResult,
      not_kept_streak: count,
      kept: z.array(metricNote),
      failed: z.array(metricNote),
    })
    .optional(),
  progress_marks: z.looseObject({ tree: z.string().nullable(), tasks: z.string() }).optional(),
  did_work: z.boolean().optional(),
  fallback: z.looseObject({ index: count, until: z.number() }).nullable().optional(),
  review: z
    .looseObject({
      start_head: nullableString,
      rounds: z.array(
        z.looseObject({ iteration: z.number(), approved: z.boolean(), findings: z.array(z.string()) }),
      ),
      cost_usd: z.number(),
      tokens: z.number(),
    })
    .optional(),
  protected: z
    .looseObject({ globs: z.array(z.string()), hashes: z.record(z.string(), z.string()) })
    .optional(),
  usage_samples: z
    .array(
      z.looseObject({ hat: nullableString, backend: z.string(), costUsd: z.number(), tokens: z.number() }),
    )
    .optional(),
  no_progress_streak: count.optional(),
  limit_warnings: z.record(z.string(), z.number()).optional(),
  ladder: z
    .record(
      z.string(),
      z.looseObject({ rung: count, failures: count, successes: count, reason: nullableString }),
    )
    .optional(),
  cost_by_model: z.record(z.string(), z.number().min(0)).optional(),
  log_file: z.string().min(1),
  stop_reason: nullableString.default(null),
  stop_message: nullableString.default(null),
  exit_code: z.number().int().nullable().default(null),
});

/** The first few schema problems as `field: what is wrong`. */
function describeProblems(error: z.ZodError): string {
  const list = error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
  const more = error.issues.length > 3 ? `, and ${error.issues.length - 3} more` : '';
  return `${list.join('; ')}${more}`;
}

/** `parseLoopState` as it was with zod: the spec of its messages, defaults and key order. */
export function zodParseLoopState(text: string, where: string): LoopState {
  try {
    if (text.trim() === '') throw new Error('the file is empty');
    const parsed = stateShape.safeParse(upgradeRollback(JSON.parse(text)));
    if (!parsed.success) throw new Error(describeProblems(parsed.error));
    return parsed.data as LoopState;
  } catch (cause) {
    throw new RalphError(
      'state_corrupt',
      `${where} is damaged (${(cause as Error).message}); nothing was changed — start over with \`ralph run --fresh\` (the damaged file is kept as state.json.corrupt-<time>), or restore it from a backup`,
      { cause },
    );
  }
}
