import type { AgentEvent } from '../backends/types.ts';
import type { ChecklistProgress } from '../workflows/checklist.ts';
import type { GateSummary, IterationRecord, TokenTotals } from './iteration-record.ts';

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

/** An iteration begins: N of M, its hat and backend, the run's elapsed time. */
export interface IterationStartedEvent {
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

/** Routing picked a hat for the iteration, and the events that triggered it. */
export interface HatActivatedEvent {
  type: 'hat.activated';
  iteration: number;
  hatId: string;
  hatName: string;
  triggeredBy: string[];
}

/** The prompt of an iteration, and the scratchpad as it was read from disk for it. */
export interface PromptAssembledEvent {
  type: 'prompt.assembled';
  iteration: number;
  hat: string | null;
  prompt: string;
  bytes: number;
  scratchpad: string | null;
}

/** The agent process started. */
export interface AgentSpawnedEvent {
  type: 'agent.spawned';
  iteration: number;
  pid: number;
  command: string;
}

/** An event entered the run: published by the agent, a tag, or injected by Ralph (`source`). */
export interface EventPublishedEvent {
  type: 'event.published';
  iteration: number;
  hat: string | null;
  topic: string;
  payload: unknown;
  source: string;
}

/** A line of the events file that is not an event. */
export interface EventMalformedEvent {
  type: 'event.malformed';
  iteration: number;
  line: string;
  error: string;
}

/** The iteration asked to complete: accepted, or refused with the reasons. */
export interface CompletionDecidedEvent {
  type: 'completion.decided';
  iteration: number;
  accepted: boolean;
  reasons: string[];
  persistent: boolean;
}

/** A gate command (validate hook, tests) started. */
export interface GateStartedEvent {
  type: 'gate.started';
  iteration: number;
  gate: 'validate' | 'tests';
  command: string;
}

/** A chunk of a gate command's output. */
export interface GateOutputEvent {
  type: 'gate.output';
  iteration: number;
  gate: 'validate' | 'tests';
  text: string;
}

/** A gate command finished, with its summary and (bounded) output. */
export interface GateFinishedEvent {
  type: 'gate.finished';
  iteration: number;
  gate: 'validate' | 'tests';
  summary: GateSummary;
  output: string;
}

/** Ralph committed the iteration's changes (git.commit). */
export interface GitCommittedEvent {
  type: 'git.committed';
  iteration: number;
  commit: string;
  message: string;
}

/** Ralph pushed (git.push). */
export interface GitPushedEvent {
  type: 'git.pushed';
  iteration: number;
  remote: string;
  branch: string;
}

/** Waiting for a rate/usage limit to reset (sent again as a countdown while parked). */
export interface LoopParkedEvent {
  type: 'loop.parked';
  iteration: number;
  until: number;
  remainingMs: number;
  message: string;
  /** The first announcement of this park (later ones are the countdown). */
  first: boolean;
}

/** A command from the control inbox reached the loop (`ralph tell`, `stop`, `pause` …). */
export interface ControlReceivedEvent {
  type: 'control.received';
  iteration: number;
  id: string;
  kind: string;
  text?: string | undefined;
  ref?: string | undefined;
  source: string;
}

/** The loop paused at an iteration boundary (`ralph pause`). */
export interface LoopPausedEvent {
  type: 'loop.paused';
  iteration: number;
}

/** The loop goes on after a pause, a park or a wait for a human. */
export interface LoopResumedEvent {
  type: 'loop.resumed';
  iteration: number;
  from: 'paused' | 'parked' | 'waiting_for_human';
}

/** A question (`ralph ask`, `human.interact`) or approval (`gates.approval`) waits for a human. */
export interface HumanQuestionEvent {
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

/** A question or approval was answered (or timed out: `by` is `timeout`). */
export interface HumanAnsweredEvent {
  type: 'human.answered';
  iteration: number;
  id: string;
  kind: 'question' | 'approval';
  answer: string;
  by: string;
  reason?: string | undefined;
}

/** A second-opinion review (gates.review) finished. */
export interface ReviewFinishedEvent {
  type: 'review.finished';
  iteration: number;
  backend: string;
  approved: boolean;
  findings: string[];
  round: number;
  costUsd: number;
}

/** A limit is 50, 80 or 95 % used. */
export interface LimitWarningEvent {
  type: 'limit.warning';
  limit: 'iterations' | 'runtime' | 'cost' | 'tokens';
  percent: number;
  message: string;
}

/** Persistent mode found nothing to do: the loop waits for changes (or the cooldown). */
export interface LoopIdleEvent {
  type: 'loop.idle';
  iteration: number;
  watch: readonly string[];
  cooldownMs: number;
}

/** The idle wait ended, and why. */
export interface LoopWokeEvent {
  type: 'loop.woke';
  iteration: number;
  reason: string;
}

/** The agent has been silent a while but is still running (at most once per heartbeat interval). */
export interface AgentHeartbeatEvent {
  type: 'agent.heartbeat';
  iteration: number;
  runningMs: number;
  silentMs: number;
}

/** A chunk of the agent's raw output. */
export interface AgentOutputEvent {
  type: 'agent.output';
  iteration: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

/** One normalized event parsed from the agent's output (text, tool call, usage, result …). */
export interface AgentEventEvent {
  type: 'agent.event';
  iteration: number;
  event: AgentEvent;
}

/** An iteration ended: its record and the run's totals so far. */
export interface IterationFinishedEvent {
  type: 'iteration.finished';
  record: IterationRecord;
  totals: { costUsd: number; tokens: number };
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
  logFile: string;
  /** How to continue the run (a limit stop says which flag to raise); undefined when done. */
  next?: string | undefined;
  /** With a checklist: progress at the end and what this run completed. */
  progress?:
    | (ChecklistProgress & { tasksCompletedThisRun: number; milestonesCompletedThisRun: number })
    | undefined;
}

/**
 * The one typed event stream of the engine; every reporter, log and sink consumes it. Each event
 * is one JSON line of `.ralph/runs/<run-id>/stream.jsonl` (`{at, event}`): the shapes are a contract.
 */
export type LoopEvent =
  | LoopStartedEvent
  | NoticeEvent
  | PreflightEvent
  | IterationStartedEvent
  | HatActivatedEvent
  | PromptAssembledEvent
  | AgentSpawnedEvent
  | EventPublishedEvent
  | EventMalformedEvent
  | CompletionDecidedEvent
  | GateStartedEvent
  | GateOutputEvent
  | GateFinishedEvent
  | GitCommittedEvent
  | GitPushedEvent
  | LoopParkedEvent
  | ControlReceivedEvent
  | LoopPausedEvent
  | LoopResumedEvent
  | HumanQuestionEvent
  | HumanAnsweredEvent
  | ReviewFinishedEvent
  | LimitWarningEvent
  | LoopIdleEvent
  | LoopWokeEvent
  | AgentHeartbeatEvent
  | AgentOutputEvent
  | AgentEventEvent
  | IterationFinishedEvent
  | LoopFinishedEvent;

/** The kinds of loop events (`loop.started`, `iteration.finished` …). */
export type LoopEventType = LoopEvent['type'];

/**
 * A handler per event kind: a table of this type that leaves out a kind does not compile, so a new
 * event cannot be forgotten by a reporter that must show or record every kind.
 */
export type LoopEventHandlers<R = void> = {
  [K in LoopEventType]: (event: Extract<LoopEvent, { type: K }>) => R;
};

/** Calls the table's handler for the event's kind. */
export function handleEvent<R>(handlers: LoopEventHandlers<R>, event: LoopEvent): R {
  return (handlers[event.type] as (e: LoopEvent) => R)(event);
}
