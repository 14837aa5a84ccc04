import type {
  CurrentIteration,
  ForgeState,
  HeldQuestion,
  LadderRung,
  MetricProgress,
  PendingEvent,
  PendingRollback,
  QueuedGuidance,
  RunStatus,
} from './fields.ts';

// `.ralph/state.json` is one flat object (--resume reads it as it is); its fields are grouped here by
// the domain that alone changes them. test/unit/architecture-state-owners.test.ts holds the owner of
// each part and fails when another file assigns to one of its fields.

/** Who the run is and where its files are: set when the run is created (owner: engine/run/run-setup.ts, state/loop-state.ts). */
export interface RunRecordPart {
  version: 1;
  run_id: string;
  started_at: string;
  updated_at: string;
  /** Pid of the ralph process that last ran this loop. */
  pid: number;
  workspace: string;
  backend: string;
  max_iterations: number;
  events_file: string;
  log_file: string;
}

/** Where the run stands and how it ended (owner: state/loop-state/run-status.ts). */
export interface RunStatusPart {
  status: RunStatus;
  /** The stop that iteration decided, saved with it: a crash before the run ended ends it on resume. */
  pending_stop?: { reason: string; message: string; exit_code: number } | null;
  stop_reason: string | null;
  stop_message: string | null;
  exit_code: number | null;
}

/** What the run has used against its limits (owner: engine/context/spend-and-limits.ts). */
export interface LimitsPart {
  /** Iterations finished (a re-run after a crash does not count twice). */
  iterations: number;
  consecutive_failures: number;
  cost_usd: number;
  tokens: { input: number; output: number; cache_read: number; cache_write: number; total: number };
  /** Runtime used so far, summed over every session of this run (resume included). */
  elapsed_ms: number;
  /** A rate/usage limit (or transient API error) parked the loop until `until` (epoch ms); the interrupted iteration re-runs. */
  parked?: { until: number; message: string; transient: boolean } | null;
  /** Parks in a row (reset by a successful iteration): rate limits back off longer each time. */
  parks?: { rateLimit: number; transient: number };
  /** Limit warnings given so far: the highest percent per limit. */
  limit_warnings?: Record<string, number>;
  /** Usage of the last finished iterations by hat and backend (budget foresight). */
  usage_samples?: { hat: string | null; backend: string; costUsd: number; tokens: number }[];
}

/** The iteration in progress (owner: state/loop-state/in-flight.ts; state/loop-state.ts lays the in-flight file over it). */
export interface InFlightPart {
  current: CurrentIteration | null;
}

/** The hat engine's input: events waiting, the events file read so far, idleness (owner: engine/context/event-queue.ts). */
export interface EventQueuePart {
  /** Events waiting to be routed (the hat engine's input). */
  pending_events: PendingEvent[];
  /** Bytes of the events file already read by the loop. */
  events_offset: number;
  /** Malformed event lines in a row. */
  malformed_streak: number;
  /** Topics seen in this run (for required_events). */
  seen_topics: string[];
  /** Persistent mode: the next iteration waits for a change (or the cooldown) first. */
  idle: boolean;
  /** While idle: when the next scan runs without a change (epoch ms), or null when only a change wakes it. */
  idle_next_scan_at?: number | null;
}

/** What the iterations decided and recorded (owner: engine/iteration/). */
export interface IterationPart {
  /** Activations per hat (for max_activations). */
  hat_activations: Record<string, number>;
  /** Recovery task.resume injections in a row. */
  recoveries: number;
  /** Stale-loop detection: the last event signature and how often it repeated in a row. */
  last_signature: string | null;
  signature_repeats: number;
  /**
   * The record of the last finished iteration, saved with the counters in one atomic write before
   * it is appended to iterations.jsonl: a crash between the two appends it on the next start.
   */
  last_record?: ({ iteration: number } & Record<string, unknown>) | null;
  /** Feedback on the last iteration for the next prompt (e.g. a promise not on the last line). */
  feedback?: string | null;
}

/** Model ladders, the fallback backend and the spend per model (owner: engine/iteration/model-rung.ts, backend-fallback.ts). */
export interface ModelPart {
  /** Model ladders: the rung per `<owner>@<task|milestone|run>` (the newest few dozen scopes). */
  ladder?: Record<string, LadderRung>;
  /** What the agents cost per model (USD), for the summary's spend per model. */
  cost_by_model?: Record<string, number>;
  /** cli.fallback: the fallback backend in use and when the primary's usage limit resets (epoch ms). */
  fallback?: { index: number; until: number } | null;
}

/** The human in the loop: the control inbox, guidance, waits and review points (owner: engine/steering/). */
export interface HumanPart {
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
  /** A question or approval timed out with `human.on_timeout: stop`: the loop stops at the next boundary. */
  human_timeout?: string | null;
  /** A human rejected the last changes (or did not approve them): they stay uncommitted, the next iteration builds on them. */
  uncommitted_changes?: boolean;
}

/** gates.on_failure: rollback, rules, metric (owner: engine/gates/rollback.ts). */
export interface RollbackPart {
  /** The last commit whose gates passed (the run's start commit at first). */
  last_green?: string | null;
  /**
   * A rollback under way in the workspace or each repository of `repos`, saved before anything is set
   * aside: a crash leaves each part in its ref, its tree, or both; --resume finishes it.
   */
  rollback?: PendingRollback | null;
}

/** `repos:` (owner: engine/repos/). */
export interface ReposPart {
  /** Each repository's HEAD where the next iteration's changes start (after Ralph's last commit there). */
  repo_heads?: Record<string, string | null>;
}

/** Whether the run does work (owner: engine/gates/work-progress.ts). */
export interface ProgressPart {
  /** The work tree and tasks as the last iteration left them (no-progress rule, completion.require_work). */
  progress_marks?: { tree: string | null; tasks: string };
  /** Some iteration of this run changed files or committed. */
  did_work?: boolean;
  /** Finished iterations in a row that changed nothing (event_loop.max_idle_iterations). */
  no_progress_streak?: number;
}

/** What the gates keep across iterations (owner: engine/gates/protect-gate.ts, git-config-gate.ts, review-gate.ts). */
export interface GatesPart {
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
}

/** The workflows' bookkeeping: where the checklist started, the TDD loop (owner: engine/workflow-steps/). */
export interface WorkflowPart {
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
}

/** The metric loop's figures, docs/guide/optimize.md (owner: engine/metric/). */
export interface MetricPart {
  metric?: MetricProgress;
}

/** forge.pull_requests: per_milestone — milestone branches and pull requests, kept across --resume (owner: engine/workflow-steps/milestone-prs.ts). */
export interface ForgePart {
  forge?: ForgeState | null;
}

/** `.ralph/state.json`: durable loop state, written atomically after every step; the parts above, flat. */
export type LoopState = RunRecordPart &
  RunStatusPart &
  LimitsPart &
  InFlightPart &
  EventQueuePart &
  IterationPart &
  ModelPart &
  HumanPart &
  RollbackPart &
  ReposPart &
  ProgressPart &
  GatesPart &
  WorkflowPart &
  MetricPart &
  ForgePart;
