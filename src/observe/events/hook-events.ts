/** What a finished hook means for the loop: `pass`, or its `on_error` applied to a failure. */
export type HookDisposition = 'pass' | 'warn' | 'block' | 'suspend';

/** A lifecycle hook (`hooks.events`) started. */
export interface HookStartedEvent {
  type: 'hook.started';
  /** The iteration it belongs to (the last finished one between iterations). */
  iteration: number;
  phaseEvent: string;
  name: string;
  /** Its argv, joined for people. */
  command: string;
  /** 1, then 2… when `suspend_mode` runs it again. */
  attempt: number;
}

/** A lifecycle hook finished: how, and what that does to the loop. */
export interface HookFinishedEvent {
  type: 'hook.finished';
  iteration: number;
  phaseEvent: string;
  name: string;
  attempt: number;
  disposition: HookDisposition;
  /** Null when it was killed or never started. */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Why it failed in words (exit code, timeout, no such program, bad mutation output), or null. */
  failure: string | null;
  /** The last part of its stdout and stderr, redacted. */
  output: string;
  truncated: boolean;
}

/** The events of lifecycle hooks. */
export type HookEvent = HookStartedEvent | HookFinishedEvent;
