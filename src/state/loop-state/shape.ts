import type {
  CurrentIteration,
  ForgeState,
  HeldQuestion,
  LadderRung,
  MetricProgress,
  PendingEvent,
  PendingRollback,
  QueuedGuidance,
  ReposRollback,
  RunStatus,
} from './fields.ts';

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
  /** repos: each repository's HEAD where the next iteration's changes start (after Ralph's last commit there). */
  repo_heads?: Record<string, string | null>;
  /**
   * A rollback under way, saved before anything is set aside: `rescued` once the rescue ref holds the
   * changes. A crash before the reset leaves them in the ref and the tree; --resume finishes it.
   */
  rollback?: PendingRollback | null;
  /** repos: a rollback across the repositories under way (--resume finishes it per repository). */
  repos_rollback?: ReposRollback | null;
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
  /**
   * The repository's program-running git config at run start (src/git/workspace-guard/program-config.ts): its
   * settings as `git config --list` prints them, and its files' sha256 ('' for one that is absent).
   */
  git_config?: { settings: string[]; files: Record<string, string> };
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
