import type { GateSummary } from '../iteration-record.ts';

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

/** The events of what an iteration's work goes through after the agent: gates, the review, git. */
export type GateEvent =
  | GateStartedEvent
  | GateOutputEvent
  | GateFinishedEvent
  | ReviewFinishedEvent
  | GitCommittedEvent
  | GitPushedEvent;
