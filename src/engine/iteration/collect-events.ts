import {
  appendEvent,
  type MalformedLine,
  malformedOf,
  parseEventTags,
  readEventsSince,
} from '../../state/events-log.ts';
import type { LoopState, PendingEvent } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { withoutPromptEcho } from '../decide/completion.ts';

export interface Collected {
  /** Events published since the last read, in order (agent `ralph emit` lines and event tags). */
  published: PendingEvent[];
  malformed: MalformedLine[];
  /** Malformed lines in a row at the end of this read (continuing `streak`). */
  streak: number;
  nextOffset: number;
}

/**
 * Reads what was appended to the events file since `offset`, plus `<event topic>` tags in the agent's
 * final text (which are appended to the file so `ralph events` shows them). Lines Ralph wrote itself
 * (they carry a `source`) are skipped: they are already in the pending queue.
 */
export function collectEvents(opts: {
  eventsFile: string;
  offset: number;
  streak: number;
  iteration: number | null;
  hat: string | null;
  finalText: string | null;
  /** The iteration's prompt: `<event>` tags in an echo of it are not the agent's. */
  prompt?: string | undefined;
  defaultSource: string;
}): Collected {
  const chunk = readEventsSince(opts.eventsFile, opts.offset);
  const published: PendingEvent[] = [];
  const malformed: MalformedLine[] = [];
  let streak = opts.streak;
  for (const item of chunk.items) {
    if (!item.ok) {
      malformed.push(malformedOf(item));
      streak++;
      continue;
    }
    streak = 0;
    if (item.value.source !== undefined) continue;
    published.push({
      topic: item.value.topic,
      payload: item.value.payload,
      source: opts.defaultSource,
      iteration: opts.iteration,
    });
  }
  if (opts.finalText) {
    const tags = parseEventTags(withoutPromptEcho(opts.finalText, opts.prompt ?? ''));
    for (const tag of tags) {
      appendEvent(opts.eventsFile, {
        topic: tag.topic,
        payload: tag.payload,
        ts: new Date().toISOString(),
        iteration: opts.iteration ?? undefined,
        hat: opts.hat,
        source: 'tag',
      });
      published.push({ ...tag, source: 'tag', iteration: opts.iteration });
    }
  }
  // Lines appended here carry a source, so the next read skips them.
  return { published, malformed, streak, nextOffset: chunk.nextOffset };
}

/** Events published from outside an iteration (e.g. `ralph emit` in another terminal) since the last read. */
export function readExternalEvents(ctx: RunContext): Collected {
  return externalEventsSince(ctx.eventsFile, ctx.state);
}

/** The same for a run's state read from disk (`ralph run --resume --dry-run`). */
export function externalEventsSince(
  eventsFile: string,
  state: Pick<LoopState, 'events_offset' | 'malformed_streak'>,
): Collected {
  return collectEvents({
    eventsFile,
    offset: state.events_offset,
    streak: state.malformed_streak,
    iteration: null,
    hat: null,
    finalText: null,
    defaultSource: 'external',
  });
}
