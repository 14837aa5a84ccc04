import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { RalphError } from '../errors.ts';
import { inFlightFileOf, readInFlight } from './in-flight.ts';
import { writeJsonAtomicSync } from './io/atomic-write.ts';
import { ralphPaths } from './paths.ts';

/** An event waiting to be routed (kept in state.json). `source` says who published it (agent, tag, starting_event, …). */
export interface PendingEvent {
  topic: string;
  payload: unknown;
  source: string;
  iteration: number | null;
}

/** Lifecycle of a run recorded in state.json. */
export type RunStatus =
  /** A loop is (or was, if it crashed) running this run. */
  | 'running'
  /** Ctrl-C: the interrupted iteration re-runs on --resume. */
  | 'interrupted'
  /** Stopped by a limit, failures, or `ralph stop`: can be continued with --resume. */
  | 'stopped'
  | 'completed'
  /** Live states of a running loop (DESIGN.md §5): `ralph pause`, a rate/usage limit, a question, persistent idle. */
  | 'paused'
  | 'parked'
  | 'waiting_for_human'
  | 'idle'
  /** forge.wait_for_merge: a milestone's pull request is ready; the loop waits for its merge. */
  | 'waiting_for_merge';

/** The statuses of a loop that is running (or crashed while running). */
export const LIVE_STATUSES: readonly RunStatus[] = [
  'running',
  'paused',
  'parked',
  'waiting_for_human',
  'idle',
  'waiting_for_merge',
];

/** Guidance (`ralph tell`) or a human's answer waiting for the next prompt. */
export interface QueuedGuidance {
  id: string;
  /** `ralph tell`, a human's answer to `human.interact`, or a rejected approval's reason. */
  kind: 'guidance' | 'answer' | 'rejection';
  text: string;
  source: string;
}

/** The iteration in progress; kept until it finishes so a crashed run re-runs it. */
export interface CurrentIteration {
  number: number;
  hat: string | null;
  started_at: string;
  /** Agent process (= process group) id and its /proc start time, to kill a crashed run's agent. */
  agent_pid: number | null;
  agent_start_time: string | null;
}

/**
 * A question or review point that a stop or Ctrl-C left unanswered. It stays open in
 * `control/questions.jsonl`, and `--resume` waits for it again (same id) before anything else.
 */
export interface HeldQuestion {
  id: string;
  /** The review point (`gates.approval`) that waits, or null for a question (`human.interact`). */
  point: 'before_commit' | 'before_push' | 'before_complete' | null;
  iteration: number;
  /** How the run completes once the point is passed (null: the iteration did not complete). */
  completes: string | null;
  /** `before_commit`: what is committed once a human approves (then validate and push follow). */
  commit: HeldCommit | null;
}

/** What Ralph commits for an iteration (`git.commit`). */
export interface HeldCommit {
  hat: string | null;
  backend: string;
  /** The agent's final text: the commit message's summary. */
  summary: string;
  /** HEAD before the iteration, to list the files it changed. */
  before: string | null;
  /** The tests gate's line in the message (`passing`, `failing (exit 1)`), or null. */
  tests: string | null;
}

/** One result of the metric loop: its repeats, median and spread, where and when (iteration 0: the baseline). */
export interface MetricResult {
  iteration: number;
  commit: string | null;
  values: number[];
  value: number;
  spread: number;
}

/** An attempt the next prompt recalls: its idea and what came of it. */
export interface MetricNote {
  iteration: number;
  idea: string;
  value: number | null;
  why: string;
}

/** `metric`: the baseline, the best result, the attempts not kept in a row, recent kept and failed ideas (bounded). */
export interface MetricProgress {
  baseline: MetricResult;
  best: MetricResult;
  not_kept_streak: number;
  kept: MetricNote[];
  failed: MetricNote[];
}

/** An iteration's changes being set aside (gates.on_failure: rollback, rules). */
export interface PendingRollback {
  iteration: number;
  /** `refs/ralph/rescue/<run>/<iteration>`. */
  ref: string;
  /** The commit the work tree returns to. */
  to: string;
  /** Why, for the rescue commit's message and the next prompt. */
  why: string;
  rescued: boolean;
}

/** Where a model ladder (`cli.models`) stands for one task, milestone or run (docs/concepts/models.md). */
export interface LadderRung {
  /** Index into the ladder's models: the next iteration's model. */
  rung: number;
  /** Failed iterations in a row on this rung. */
  failures: number;
  /** Clean iterations in a row on this rung. */
  successes: number;
  /** Why the ladder is on this rung (null: it starts there). */
  reason: string | null;
}

/** A pull request Ralph opened (or adopted) for a milestone (`forge.pull_requests: per_milestone`). */
export interface MilestonePr {
  milestone: string;
  /** `ralph/<milestone-slug>`. */
  branch: string;
  /** The branch it merges into: the target, or the previous milestone's branch (multi-PR mode). */
  base: string;
  number: number;
  /** GraphQL node id (marking a draft ready needs it). */
  node_id: string;
  url: string;
  status: 'draft' | 'open' | 'ready' | 'merged' | 'closed';
}

/** The forge's bookkeeping of a checklist run: milestone branches and their pull requests. */
export interface ForgeState {
  /** The branch the first milestone started from, where merged milestones land. */
  target: string;
  /** The milestone being worked on and its branch; null between milestones. */
  active: { milestone: string; branch: string; base: string } | null;
  prs: MilestonePr[];
  /** The pull request the loop waits to be merged (`forge.wait_for_merge`), or null. */
  waiting: number | null;
  /** The last merged pull request: the next milestone starts from the updated target. */
  merged_target?: boolean;
}

/** `.ralph/state.json`: durable loop state, written atomically after every step. */
export interface LoopState {
  version: 1;
  run_id: string;
  status: RunStatus;
  started_at: string;
  updated_at: string;
  /** Pid of the ralph process that last ran this loop. */
  pid: number;
  workspace: string;
  backend: string;
  max_iterations: number;
  /** Iterations finished (a re-run after a crash does not count twice). */
  iterations: number;
  current: CurrentIteration | null;
  consecutive_failures: number;
  cost_usd: number;
  tokens: { input: number; output: number; cache_read: number; cache_write: number; total: number };
  /** Runtime used so far, summed over every session of this run (resume included). */
  elapsed_ms: number;
  /** Events waiting to be routed (the hat engine's input). */
  pending_events: PendingEvent[];
  events_file: string;
  /** Bytes of the events file already read by the loop. */
  events_offset: number;
  /** Topics seen in this run (for required_events). */
  seen_topics: string[];
  /** Activations per hat (for max_activations). */
  hat_activations: Record<string, number>;
  /** Recovery task.resume injections in a row. */
  recoveries: number;
  /** Stale-loop detection: the last event signature and how often it repeated in a row. */
  last_signature: string | null;
  signature_repeats: number;
  /** Malformed event lines in a row. */
  malformed_streak: number;
  /** Persistent mode: the next iteration waits for a change (or the cooldown) first. */
  idle: boolean;
  /** While idle: when the next scan runs without a change (epoch ms), or null when only a change wakes it. */
  idle_next_scan_at?: number | null;
  /** A rate/usage limit (or transient API error) parked the loop until `until` (epoch ms); the interrupted iteration re-runs. */
  parked?: { until: number; message: string; transient: boolean } | null;
  /** Parks in a row (reset by a successful iteration): rate limits back off longer each time. */
  parks?: { rateLimit: number; transient: number };
  /** The design document this run works through (checklist workflow), for resume matching. */
  checklist?: string | null;
  /** The milestone that was current when the run started (completion.condition: milestone). */
  start_milestone?: string | null;
  /** Checklist counts when the run started (kept across --resume), for "completed this run". */
  start_progress?: { tasks_done: number; milestones_done: number } | null;
  /** TDD loop bookkeeping: missing-report streak, last failing-test signature and its repeats. */
  tdd?: {
    report_misses: number;
    report_feedback: string | null;
    last_signature: string | null;
    signature_repeats: number;
  };
  /**
   * The record of the last finished iteration, saved with the counters in one atomic write before
   * it is appended to iterations.jsonl: a crash between the two appends it on the next start.
   */
  last_record?: ({ iteration: number } & Record<string, unknown>) | null;
  /** Feedback on the last iteration for the next prompt (e.g. a promise not on the last line). */
  feedback?: string | null;
  /** The stop that iteration decided, saved with it: a crash before the run ended ends it on resume. */
  pending_stop?: { reason: string; message: string; exit_code: number } | null;
  /** The control inbox (DESIGN.md §5): bytes read, and the ids consumed (the newest few hundred). */
  control?: { offset: number; consumed: string[] };
  /** Human guidance and answers for the next prompt; cleared once an iteration carried them. */
  guidance?: QueuedGuidance[];
  /** `ralph pause` arrived: the loop waits before the next iteration until `ralph resume`. */
  paused?: boolean;
  /** `ralph stop` arrived while an iteration ran: the loop stops once it is finished. */
  stop_requested?: boolean;
  /** While `waiting_for_human`: the question or approval it waits for. */
  waiting_for?: { id: string; kind: 'question' | 'approval'; text: string; expires_at: number | null } | null;
  /** A question or review point a stop or Ctrl-C left unanswered: `--resume` returns to it. */
  held_question?: HeldQuestion | null;
  /** A human rejected the last changes (or did not approve them): they stay uncommitted, the next iteration builds on them. */
  uncommitted_changes?: boolean;
  /** gates.on_failure: rollback — the last commit whose gates passed (the run's start commit at first). */
  last_green?: string | null;
  /**
   * A rollback under way, saved before anything is set aside: `rescued` once the rescue ref holds the
   * changes. A crash before the reset leaves them in the ref and the tree; --resume finishes it.
   */
  rollback?: PendingRollback | null;
  /** metric: the metric loop's figures (docs/guide/optimize.md). */
  metric?: MetricProgress;
  /** A question or approval timed out with `human.on_timeout: stop`: the loop stops at the next boundary. */
  human_timeout?: string | null;
  /** The work tree and tasks as the last iteration left them (no-progress rule, completion.require_work). */
  progress_marks?: { tree: string | null; tasks: string };
  /** Some iteration of this run changed files or committed. */
  did_work?: boolean;
  /** Finished iterations in a row that changed nothing (event_loop.max_idle_iterations). */
  no_progress_streak?: number;
  /** gates.protect: the globs and the protected files' hashes at run start (or as a human allowed them). */
  protected?: { globs: string[]; hashes: Record<string, string> };
  /** gates.review: HEAD when the run started, the review rounds not yet approved, the reviews' usage. */
  review?: {
    start_head: string | null;
    rounds: { iteration: number; approved: boolean; findings: string[] }[];
    cost_usd: number;
    tokens: number;
  };
  /** cli.fallback: the fallback backend in use and when the primary's usage limit resets (epoch ms). */
  fallback?: { index: number; until: number } | null;
  /** Usage of the last finished iterations by hat and backend (budget foresight). */
  usage_samples?: { hat: string | null; backend: string; costUsd: number; tokens: number }[];
  /** forge.pull_requests: per_milestone — milestone branches and pull requests (kept across --resume). */
  forge?: ForgeState | null;
  /** Limit warnings given so far: the highest percent per limit. */
  limit_warnings?: Record<string, number>;
  /** Model ladders: the rung per `<owner>@<task|milestone|run>` (the newest few dozen scopes). */
  ladder?: Record<string, LadderRung>;
  /** What the agents cost per model (USD), for the summary's spend per model. */
  cost_by_model?: Record<string, number>;
  log_file: string;
  stop_reason: string | null;
  stop_message: string | null;
  exit_code: number | null;
}

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
 * The fields every reader relies on (a state file that parses but lacks one would crash them);
 * fields older Ralph versions did not write get their defaults, unknown fields are kept.
 */
const stateShape = z.looseObject({
  version: z.literal(1),
  run_id: z.string().min(1),
  status: z.enum([
    'running',
    'interrupted',
    'stopped',
    'completed',
    'paused',
    'parked',
    'waiting_for_human',
    'idle',
    'waiting_for_merge',
  ]),
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
        })
        .nullable(),
    })
    .nullable()
    .optional(),
  uncommitted_changes: z.boolean().optional(),
  last_green: nullableString.optional(),
  rollback: z
    .looseObject({
      iteration: z.number().int().positive(),
      ref: z.string().min(1),
      to: z.string().min(1),
      why: z.string(),
      rescued: z.boolean(),
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

/** Reads `.ralph/state.json`; undefined when there is none, a `state_corrupt` RalphError when damaged. */
export function readLoopState(path: string): LoopState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return withInFlight(parseLoopState(text, path), path);
}

/**
 * The state with the iteration in flight (`runs/<run>/in-flight.json`) laid over it while that is
 * newer than the state's last save: a short iteration saves state.json only at its end.
 */
function withInFlight(state: LoopState, path: string): LoopState {
  const f = readInFlight(inFlightFileOf(dirname(path), state.run_id));
  if (!f || f.number !== (state.current?.number ?? state.iterations + 1) || f.at < state.updated_at)
    return state;
  const { at: _at, ...current } = f;
  state.current = current;
  return state;
}

/**
 * A state file's text as a LoopState, checked against its schema; `where` names it in the error
 * (a path, or a checkpoint). Throws `state_corrupt` saying what is wrong and how to go on.
 */
export function parseLoopState(text: string, where: string): LoopState {
  try {
    if (text.trim() === '') throw new Error('the file is empty');
    const parsed = stateShape.safeParse(JSON.parse(text));
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

/**
 * Saves the state atomically (stamping `updated_at`); `fsync: false` for bookkeeping between the
 * commit points. Returns the JSON text now in the file.
 */
export function writeLoopState(path: string, state: LoopState, options: { fsync?: boolean } = {}): string {
  state.updated_at = new Date().toISOString();
  return writeJsonAtomicSync(path, state, options);
}

/** A run is unfinished when it crashed mid-loop or was interrupted: a plain `ralph run` must not clobber it. */
export function isUnfinished(state: LoopState): boolean {
  return LIVE_STATUSES.includes(state.status) || state.status === 'interrupted';
}

/**
 * A workspace's loop state for a view (dashboard, status of a worker): undefined when there is
 * none or it is damaged — the loop itself, `ralph status` and `--resume` report the damage.
 */
export function loopStateOf(workspace: string): LoopState | undefined {
  try {
    return readLoopState(ralphPaths(workspace).state);
  } catch {
    return undefined;
  }
}
