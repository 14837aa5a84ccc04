import type { AgentEvent } from '../backends/types.ts';
import type { ChecklistProgress } from '../workflows/checklist.ts';

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
  | 'error';

/** Checklist progress (seed 003) shown in banners and the end summary. */
export type { ChecklistProgress };

/** Token totals as recorded in state, records and summaries. */
export interface TokenTotals {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  total: number;
}

/** A gate's result as recorded per iteration. */
export interface GateSummary {
  command: string;
  passed: boolean;
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
}

/** The decisions of one iteration, with the values they were made on. */
export interface IterationDecision {
  route: { hat: string | null; backend: string; triggered_by: string[] };
  /** Null when the iteration did not ask to complete. */
  completion: { accepted: boolean; reasons: string[] } | null;
  gates: { validate?: boolean; tests?: boolean };
  /** Each limit: used and its maximum (null: none). */
  limits: {
    iterations: { used: number; max: number };
    runtime_ms: { used: number; max: number | null };
    cost_usd: { used: number; max: number | null };
    tokens: { used: number; max: number | null };
    consecutive_failures: { used: number; max: number };
  };
  /** The stop this iteration decided, if any. */
  stop: { reason: string; message: string } | null;
}

/** One line of `.ralph/runs/<run-id>/iterations.jsonl`. */
export interface IterationRecord {
  run_id: string;
  iteration: number;
  hat: string | null;
  backend: string;
  /** The executable that ran (`claude`, `./agent.sh`); absent in records written before it was kept. */
  command?: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  exit_code: number | null;
  signal: string | null;
  killed_by: string | null;
  tokens: TokenTotals;
  cost_usd: number | null;
  /** The CLI reported no cost: cost_usd is estimated from the tokens and the model's list price. */
  cost_estimated?: boolean;
  context_pct: number | null;
  model: string | null;
  head_before: string | null;
  head_after: string | null;
  /** Topics the agent published in this iteration. */
  events: string[];
  /** Files the iteration changed (git repositories only). */
  files_changed: string[] | null;
  /** The commit Ralph made for it (git.commit), if any. */
  commit: string | null;
  /** Gate results: validate hook and tests. */
  gates: { validate?: GateSummary; tests?: GateSummary };
  /** complete | success | failure | gate_tampered | limit | aborted | parked | idle (persistent mode: nothing to do, waiting) */
  verdict: string;
  reason: string | null;
  consecutive_failures: number;
  /** Processes the iteration left running that Ralph killed at its end (the agent itself excluded). */
  killed_processes: { pid: number; command: string }[];
  /** A failed run: the agent's last stderr lines (redacted). */
  stderr_tail?: string;
  /** TDD loop: report sections missing, files changed outside tdd.allowed_paths. */
  report_missing?: string[];
  scope_violations?: string[];
  /** Ids of the human guidance (`ralph tell`) and answers this iteration's prompt carried. */
  guidance?: string[];
  /** Ids of the questions the agent asked (`ralph ask`) during the iteration. */
  questions?: string[];
  /** cli.fallback: the backend this iteration ran on instead of the parked primary. */
  fallback_from?: string;
  /** gates.review after this iteration: the verdict, the findings and the review's own usage. */
  review?: { approved: boolean; findings: string[]; round: number; cost_usd: number; tokens: number };
  /** Protected files (gates.protect) the iteration changed: verdict gate_tampered. */
  tampered?: string[];
  /** What the iteration moved (no-progress rule): files (null: unknown), commit, tasks, events. */
  progress?: { files: boolean | null; commit: boolean; tasks: boolean; events: boolean };
  /** Why the loop did what it did after this iteration (`ralph explain` prints it). */
  decision?: IterationDecision;
  /** Review points a human settled for this iteration (`gates.approval`). */
  approvals?: { point: string; id: string; answer: string; by: string; reason?: string }[];
}

/** The one typed event stream of the engine; every reporter, log and sink consumes it. */
export type LoopEvent =
  | {
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
  | { type: 'notice'; level: 'info' | 'warn'; message: string }
  /** Pre-flight checks run before the first iteration. */
  | { type: 'preflight'; checks: { check: string; level: 'ok' | 'warn' | 'fatal'; message: string }[] }
  | {
      type: 'iteration.started';
      iteration: number;
      maxIterations: number;
      hat: string | null;
      backend: string;
      elapsedMs: number;
      branch: string | undefined;
      startedAt: number;
      progress?: ChecklistProgress | undefined;
    }
  | { type: 'hat.activated'; iteration: number; hatId: string; hatName: string; triggeredBy: string[] }
  /** The prompt of an iteration, and the scratchpad as it was read from disk for it. */
  | {
      type: 'prompt.assembled';
      iteration: number;
      hat: string | null;
      prompt: string;
      bytes: number;
      scratchpad: string | null;
    }
  | { type: 'agent.spawned'; iteration: number; pid: number; command: string }
  /** An event entered the run: published by the agent, a tag, or injected by Ralph (`source`). */
  | {
      type: 'event.published';
      iteration: number;
      hat: string | null;
      topic: string;
      payload: unknown;
      source: string;
    }
  | { type: 'event.malformed'; iteration: number; line: string; error: string }
  | {
      type: 'completion.decided';
      iteration: number;
      accepted: boolean;
      reasons: string[];
      persistent: boolean;
    }
  | { type: 'gate.started'; iteration: number; gate: 'validate' | 'tests'; command: string }
  | { type: 'gate.output'; iteration: number; gate: 'validate' | 'tests'; text: string }
  | {
      type: 'gate.finished';
      iteration: number;
      gate: 'validate' | 'tests';
      summary: GateSummary;
      output: string;
    }
  | { type: 'git.committed'; iteration: number; commit: string; message: string }
  | { type: 'git.pushed'; iteration: number; remote: string; branch: string }
  /** Waiting for a rate/usage limit to reset (sent again as a countdown while parked). */
  | {
      type: 'loop.parked';
      iteration: number;
      until: number;
      remainingMs: number;
      message: string;
      /** The first announcement of this park (later ones are the countdown). */
      first: boolean;
    }
  /** A command from the control inbox reached the loop (`ralph tell`, `stop`, `pause` …). */
  | {
      type: 'control.received';
      iteration: number;
      id: string;
      kind: string;
      text?: string | undefined;
      ref?: string | undefined;
      source: string;
    }
  | { type: 'loop.paused'; iteration: number }
  /** The loop goes on after a pause, a park or a wait for a human. */
  | { type: 'loop.resumed'; iteration: number; from: 'paused' | 'parked' | 'waiting_for_human' }
  /** A question (`ralph ask`, `human.interact`) or approval (`gates.approval`) waits for a human. */
  | {
      type: 'human.question';
      iteration: number;
      id: string;
      kind: 'question' | 'approval';
      text: string;
      options?: string[] | undefined;
      point?: string | undefined;
      /** When it gives up (epoch ms), or null. */
      expiresAt: number | null;
    }
  | {
      type: 'human.answered';
      iteration: number;
      id: string;
      kind: 'question' | 'approval';
      answer: string;
      by: string;
      reason?: string | undefined;
    }
  /** A second-opinion review (gates.review) finished. */
  | {
      type: 'review.finished';
      iteration: number;
      backend: string;
      approved: boolean;
      findings: string[];
      round: number;
      costUsd: number;
    }
  /** A limit is 50, 80 or 95 % used. */
  | {
      type: 'limit.warning';
      limit: 'iterations' | 'runtime' | 'cost' | 'tokens';
      percent: number;
      message: string;
    }
  | { type: 'loop.idle'; iteration: number; watch: readonly string[]; cooldownMs: number }
  | { type: 'loop.woke'; iteration: number; reason: string }
  /** The agent has been silent a while but is still running (at most once per heartbeat interval). */
  | { type: 'agent.heartbeat'; iteration: number; runningMs: number; silentMs: number }
  | { type: 'agent.output'; iteration: number; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'agent.event'; iteration: number; event: AgentEvent }
  | { type: 'iteration.finished'; record: IterationRecord; totals: { costUsd: number; tokens: number } }
  | {
      type: 'loop.finished';
      runId: string;
      stopReason: StopReason;
      message: string;
      exitCode: number;
      iterations: number;
      elapsedMs: number;
      tokens: TokenTotals;
      costUsd: number;
      logFile: string;
      /** How to continue the run (a limit stop says which flag to raise); undefined when done. */
      next?: string | undefined;
      /** With a checklist: progress at the end and what this run completed. */
      progress?:
        | (ChecklistProgress & { tasksCompletedThisRun: number; milestonesCompletedThisRun: number })
        | undefined;
    };

export type LoopEventListener = (event: LoopEvent) => void;
