import type { TokenTotals } from '../../state/iteration-record-shape.ts';
import type { ChecklistProgress } from '../../workflows/checklist.ts';

/** Stable stop reasons recorded as `stop_reason`. */
export type StopReason =
  | 'completed'
  | 'max_iterations'
  | 'max_runtime'
  | 'max_cost'
  | 'max_tokens'
  | 'consecutive_failures'
  | 'stale_loop'
  | 'no_events'
  | 'malformed_events'
  | 'iteration_timeout'
  | 'validation_failed'
  | 'push_failed'
  | 'health_check'
  | 'dirty_tree'
  | 'stuck'
  | 'tdd_state'
  | 'auth_error'
  | 'interrupted'
  | 'cancelled'
  /** gates.review requested changes max_rounds times in a row. */
  | 'review_unresolved'
  /** Iterations kept changing protected files (gates.protect) until max_consecutive_failures. */
  | 'gate_tampered'
  /** event_loop.max_idle_iterations iterations in a row changed nothing. */
  | 'no_progress'
  /** Nobody answered a question or approval in time and `human.on_timeout` is `stop`. */
  | 'human_timeout'
  /** A milestone's pull request was closed without being merged (forge.wait_for_merge). */
  | 'pr_closed'
  /** metric: the best value reached metric.target. */
  | 'metric_target'
  /** metric: metric.patience attempts in a row were not kept. */
  | 'metric_patience'
  /** A lifecycle hook with `on_error: block` failed (hooks.events). */
  | 'hook_blocked'
  | 'error';

/** Checklist progress (seed 003) shown in banners and the end summary. */
export type { ChecklistProgress };

/** The run began (or resumed): the first event of every run. */
export interface LoopStartedEvent {
  type: 'loop.started';
  runId: string;
  resumed: boolean;
  workspace: string;
  backend: string;
  maxIterations: number;
  branch: string | undefined;
  logFile: string;
  at: number;
}

/** Something Ralph tells the user (setup, a taken-over lock, a failed notification). */
export interface NoticeEvent {
  type: 'notice';
  level: 'info' | 'warn';
  message: string;
}

/** Pre-flight checks run before the first iteration. */
export interface PreflightEvent {
  type: 'preflight';
  checks: { check: string; level: 'ok' | 'warn' | 'fatal'; message: string }[];
}

/** A limit is 50, 80 or 95 % used. */
export interface LimitWarningEvent {
  type: 'limit.warning';
  limit: 'iterations' | 'runtime' | 'cost' | 'tokens';
  percent: number;
  message: string;
}

/** The run ended: why, its exit code and its totals. The last event of every run. */
export interface LoopFinishedEvent {
  type: 'loop.finished';
  runId: string;
  stopReason: StopReason;
  message: string;
  exitCode: number;
  iterations: number;
  elapsedMs: number;
  tokens: TokenTotals;
  costUsd: number;
  /** With a model ladder (`cli.models`): what the agents cost per model, in USD. */
  costByModel?: Record<string, number> | undefined;
  logFile: string;
  /** How to continue the run (a limit stop says which flag to raise); undefined when done. */
  next?: string | undefined;
  /** With a checklist: progress at the end and what this run completed. */
  progress?:
    | (ChecklistProgress & { tasksCompletedThisRun: number; milestonesCompletedThisRun: number })
    | undefined;
  /** forge.pull_requests: every pull request the run opened or adopted, in milestone order. */
  pullRequests?: PullRequestSummary[] | undefined;
}

/** A milestone's pull request as the summary and `ralph status` name it. */
export interface PullRequestSummary {
  number: number;
  url: string;
  milestone: string;
  status: 'draft' | 'open' | 'ready' | 'merged' | 'closed';
}

/** The events that open and close a run and what it says around its iterations. */
export type RunEvent =
  | LoopStartedEvent
  | NoticeEvent
  | PreflightEvent
  | LimitWarningEvent
  | LoopFinishedEvent;
