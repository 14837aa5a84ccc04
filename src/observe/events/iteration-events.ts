import type { AgentEvent } from '../../backends/types.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import type { ChecklistProgress } from '../../workflows/checklist.ts';

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
  /** The agent's own command, also when it runs inside the sandbox's wrapper. */
  command: string;
  /** It runs inside `sandbox: on`. */
  sandboxed?: true | undefined;
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

/** An iteration ended: its record and the run's totals so far. */
export interface IterationFinishedEvent {
  type: 'iteration.finished';
  record: IterationRecord;
  totals: { costUsd: number; tokens: number };
}

/** The events of one iteration: its start, route, prompt, agent process, published events and end. */
export type IterationEvent =
  | IterationStartedEvent
  | HatActivatedEvent
  | PromptAssembledEvent
  | AgentSpawnedEvent
  | AgentHeartbeatEvent
  | AgentOutputEvent
  | AgentEventEvent
  | EventPublishedEvent
  | EventMalformedEvent
  | CompletionDecidedEvent
  | IterationFinishedEvent;
