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

/**
 * A progress note from the agent to the human (`ralph tools interact progress`): sent on the human
 * channel (`channel`: `telegram`, or `none` when none is set up) and recorded; nothing waits for it.
 */
export interface HumanProgressEvent {
  type: 'human.progress';
  iteration: number;
  id: string;
  text: string;
  channel: 'telegram' | 'none';
}

/** The events of a loop that waits or is steered: the control inbox, pauses, parks, idle waits, humans. */
export type ControlEvent =
  | ControlReceivedEvent
  | LoopPausedEvent
  | LoopResumedEvent
  | LoopParkedEvent
  | LoopIdleEvent
  | LoopWokeEvent
  | HumanQuestionEvent
  | HumanAnsweredEvent
  | HumanProgressEvent;
