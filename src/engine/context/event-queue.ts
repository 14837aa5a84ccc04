import type { PendingEvent } from '../../state/loop-state/fields.ts';
import type { EventQueuePart } from '../../state/loop-state/shape.ts';

// The owner of the hat engine's input (EventQueuePart): the events waiting to be routed, how far
// the events file has been read, the topics seen, and whether the loop idles.

/** Events now waiting to be routed, after those already waiting. */
export function queueEvents(state: EventQueuePart, events: readonly PendingEvent[]): void {
  state.pending_events.push(...events);
}

/** The events waiting to be routed are these, in this order (what routing left, or a filtered queue). */
export function setQueue(state: EventQueuePart, events: PendingEvent[]): void {
  state.pending_events = events;
}

/** The events file was read up to `nextOffset`, ending with `streak` malformed lines in a row. */
export function noteEventsRead(state: EventQueuePart, read: { nextOffset: number; streak: number }): void {
  state.events_offset = read.nextOffset;
  state.malformed_streak = read.streak;
}

/** The events file was read up to `nextOffset` (the malformed streak as it was). */
export function noteEventsOffset(state: EventQueuePart, nextOffset: number): void {
  state.events_offset = nextOffset;
}

/** Topics published in this run (for `required_events`), each kept once. */
export function noteTopics(state: EventQueuePart, events: readonly PendingEvent[]): void {
  for (const e of events) if (!state.seen_topics.includes(e.topic)) state.seen_topics.push(e.topic);
}

/** Persistent mode: whether the next iteration waits for a change (or the cooldown) first. */
export function setIdle(state: EventQueuePart, idle: boolean): void {
  state.idle = idle;
}

/** While idle: when the next scan runs without a change (epoch ms; null: only a change wakes it). */
export function setNextScan(state: EventQueuePart, at: number | null): void {
  state.idle_next_scan_at = at;
}
