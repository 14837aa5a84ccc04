import type { HatConfig } from '../../config/schema.ts';

import type { PendingEvent } from '../../state/loop-state.ts';

export const TASK_START = 'task.start';
export const TASK_RESUME = 'task.resume';
/** Recovery injections allowed in a row before the loop gives up on an agent that never publishes. */
export const MAX_RECOVERIES = 3;
/** The same event signature this many iterations in a row is a stale loop. */
export const STALE_REPEATS = 3;

export interface EventDecisionInput {
  iteration: number;
  /** True when the config has hats (event-driven mode); solo mode needs no events. */
  hatsMode: boolean;
  hatId: string | null;
  hat: HatConfig | null;
  /** The agent ran to a successful end (exit 0, no error result, not killed). */
  succeeded: boolean;
  /** Events the agent published this iteration (ralph emit and event tags), in order. */
  published: PendingEvent[];
  /** The events this iteration consumed (requeued when it failed without publishing). */
  consumed: PendingEvent[];
  /** Pending events still queued for other hats. */
  queued: PendingEvent[];
  /** The promise is the last non-empty line of the agent's final output. */
  promiseInOutput: boolean;
  /** The completion marker (e.g. PROJECT_COMPLETE in IMPLEMENTATION_PLAN.md) is present. */
  markerReached?: boolean | undefined;
  /** Other reasons completion must wait (e.g. failing tests). */
  blockers?: readonly string[] | undefined;
  completionPromise: string;
  persistent: boolean;
  requiredEvents: readonly string[];
  /** Topics seen so far in this run, including this iteration's. */
  seenTopics: ReadonlySet<string>;
  /** Open (or in-progress) tasks; completion is blocked while any exist. */
  openTasks: number;
  recoveries: number;
}

export interface EventDecision {
  /** Events Ralph injects (logged to the events file with their source). */
  injected: PendingEvent[];
  /** What the next iteration routes on. */
  pending: PendingEvent[];
  completion: { requested: boolean; accepted: boolean; reasons: string[] };
  /** Stop: the loop is complete. */
  complete: boolean;
  /** Persistent idle path: the next iteration waits for a change or the cooldown. */
  idle: boolean;
  /** Events dropped as stale because their iteration ended in completion. */
  stale: PendingEvent[];
  recoveries: number;
  /** Set when the agent never published an event after the allowed recoveries. */
  giveUp: string | undefined;
}

function defaultPublishes(hat: HatConfig | null): string[] {
  const d = hat?.default_publishes;
  if (d === undefined) return [];
  return Array.isArray(d) ? d : [d];
}

/** Makes the events Ralph injects for an iteration. */
function injector(iteration: number) {
  return (topic: string, payload: unknown, source: string): PendingEvent => ({
    topic,
    payload,
    source,
    iteration,
  });
}

/** What the agent's events ask for, before any blocker is weighed (decideEvents' first step). */
export type EventReading =
  /** The agent failed, or never published after the allowed recoveries: a decision as it stands. */
  | { settled: EventDecision }
  | {
      settled?: undefined;
      /** The events that count: the published ones, or the hat's default_publishes. */
      effective: PendingEvent[];
      injected: PendingEvent[];
      /** The last effective event is the promise, or the output says it is done. */
      requested: boolean;
      recoveries: number;
    };

/**
 * The first step of decideEvents (pure): default_publishes and recovery when nothing was published,
 * and whether completion is asked for (only as the last event, or the last output line). Blockers,
 * required events and open tasks play no part yet.
 */
export function readEvents(input: EventDecisionInput): EventReading {
  const inj = injector(input.iteration);
  const injected: PendingEvent[] = [];
  const none = { requested: false, accepted: false, reasons: [] as string[] };
  const base = { injected, stale: [] as PendingEvent[], complete: false, idle: false, giveUp: undefined };

  if (!input.succeeded) {
    // Retry the same work: what it was given, plus whatever it managed to publish.
    const pending = [...input.consumed, ...input.queued, ...input.published];
    return { settled: { ...base, pending, completion: none, recoveries: input.recoveries } };
  }

  let effective = input.published;
  let recoveries = 0;
  const outputDone = input.promiseInOutput || input.markerReached === true;
  if (effective.length === 0 && !outputDone) {
    const defaults = defaultPublishes(input.hat);
    if (defaults.length > 0) {
      effective = defaults.map((t) => inj(t, null, 'default_publishes'));
      injected.push(...effective);
    } else if (input.hatsMode) {
      recoveries = input.recoveries + 1;
      if (recoveries > MAX_RECOVERIES) {
        return {
          settled: {
            ...base,
            pending: input.queued,
            completion: none,
            recoveries,
            giveUp: `the agent never published an event (${MAX_RECOVERIES} recovery attempts in a row${input.hatId ? `, hat ${input.hatId}` : ''}); make sure the instructions tell it to run \`ralph emit <topic>\`, or set default_publishes`,
          },
        };
      }
      const resume = inj(
        TASK_RESUME,
        'The previous iteration published no event. Continue the work and publish an event with `ralph emit <topic> [payload]`.',
        'recovery',
      );
      injected.push(resume);
      return { settled: { ...base, pending: [...input.queued, resume], completion: none, recoveries } };
    }
  }
  const last = effective.at(-1);
  return {
    effective,
    injected,
    requested: last?.topic === input.completionPromise || outputDone,
    recoveries,
  };
}

/** Why a requested completion must wait (pure): required events not seen, open tasks, the blockers. */
export function completionReasons(input: EventDecisionInput): string[] {
  const reasons: string[] = [];
  const missing = input.requiredEvents.filter((t) => !input.seenTopics.has(t));
  if (missing.length > 0) reasons.push(`required events not seen yet: ${missing.join(', ')}`);
  if (input.openTasks > 0) reasons.push(`${input.openTasks} task(s) still open (ralph tools task list)`);
  reasons.push(...(input.blockers ?? []));
  return reasons;
}

/** Whether the turn asks to complete, blockers aside (pure): decideEvents' `completion.requested`. */
export function asksToComplete(input: EventDecisionInput): boolean {
  const read = readEvents(input);
  return read.settled === undefined && read.requested;
}

/** decideEvents' `complete` with the blockers known so far (pure): the loop would end as completed. */
export function wouldComplete(input: EventDecisionInput): boolean {
  return asksToComplete(input) && !input.persistent && completionReasons(input).length === 0;
}

/**
 * Decides what an iteration's events mean (pure): default_publishes and recovery when nothing was
 * published, completion (only as the last event, or the last output line) with its gates, persistent
 * mode's conversion of completion into an idle `task.resume`, and the next pending events.
 */
export function decideEvents(input: EventDecisionInput): EventDecision {
  const read = readEvents(input);
  if (read.settled) return read.settled;
  const { effective, injected, requested, recoveries } = read;
  const inj = injector(input.iteration);
  const none = { requested: false, accepted: false, reasons: [] as string[] };
  const base = { injected, stale: [] as PendingEvent[], complete: false, idle: false, giveUp: undefined };
  const others = effective.filter((e) => e.topic !== input.completionPromise);
  if (!requested) {
    return { ...base, pending: [...input.queued, ...others], completion: none, recoveries };
  }

  const reasons = completionReasons(input);
  if (reasons.length > 0) {
    const resume = inj(
      TASK_RESUME,
      `Completion rejected: ${reasons.join('; ')}. Finish that work before publishing ${input.completionPromise}.`,
      'completion_rejected',
    );
    injected.push(resume);
    return {
      ...base,
      pending: [...input.queued, ...others, resume],
      completion: { requested, accepted: false, reasons },
      recoveries,
    };
  }

  if (input.persistent) {
    // Persistent mode: completion means "idle"; events published alongside it belong to the cycle
    // that just ended and must not route the next one.
    const resume = inj(TASK_RESUME, 'idle: completion received in persistent mode', 'persistent');
    injected.push(resume);
    return {
      ...base,
      pending: [resume],
      stale: [...input.queued, ...others],
      idle: true,
      completion: { requested, accepted: true, reasons },
      recoveries,
    };
  }
  return {
    ...base,
    pending: [],
    complete: true,
    completion: { requested, accepted: true, reasons },
    recoveries,
  };
}

/** Signature of an iteration's published events, for stale-loop detection. */
export function eventSignature(hatId: string | null, published: readonly PendingEvent[]): string {
  return `${hatId ?? ''}|${published.map((e) => `${e.topic}=${JSON.stringify(e.payload ?? null)}`).join(',')}`;
}
