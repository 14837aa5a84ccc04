// The named event types live by family in events/; this module is the union every sink imports.
import type { ControlEvent } from './events/control-events.ts';
import type { GateEvent } from './events/gate-events.ts';
import type { HookEvent } from './events/hook-events.ts';
import type { IterationEvent } from './events/iteration-events.ts';
import type { RunEvent } from './events/run-events.ts';

export type * from './events/control-events.ts';
export type * from './events/gate-events.ts';
export type * from './events/hook-events.ts';
export type * from './events/iteration-events.ts';
export type * from './events/run-events.ts';

/**
 * The one typed event stream of the engine; every reporter, log and sink consumes it. Each event
 * is one JSON line of `.ralph/runs/<run-id>/stream.jsonl` (`{at, event}`): the shapes are a contract.
 */
export type LoopEvent = RunEvent | IterationEvent | GateEvent | ControlEvent | HookEvent;

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
