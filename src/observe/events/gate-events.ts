import type { GateSummary } from '../../state/iteration-record-shape.ts';

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
  /** repos: the repository it was made in (absent: the workspace). */
  repo?: string;
}

/** Ralph pushed (git.push). */
export interface GitPushedEvent {
  type: 'git.pushed';
  iteration: number;
  remote: string;
  branch: string;
  /** repos: the repository pushed (absent: the workspace). */
  repo?: string;
}

/** A milestone's pull request changed (forge.pull_requests: per_milestone). */
export interface PullRequestEvent {
  type: 'forge.pull_request';
  iteration: number;
  /** opened (a draft, or not), adopted (it existed for the branch), ready for review, waiting for its merge, merged, closed unmerged. */
  action: 'opened' | 'adopted' | 'ready' | 'waiting' | 'merged' | 'closed';
  number: number;
  url: string;
  draft: boolean;
  milestone: string;
  branch: string;
  base: string;
}

/** The events of what an iteration's work goes through after the agent: gates, the review, git. */
export type GateEvent =
  | GateStartedEvent
  | GateOutputEvent
  | GateFinishedEvent
  | ReviewFinishedEvent
  | GitCommittedEvent
  | GitPushedEvent
  | PullRequestEvent;
