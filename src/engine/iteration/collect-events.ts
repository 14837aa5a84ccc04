import { redactDeep, redactLine } from '../../observe/redact.ts';
import {
  appendEvent,
  type MalformedLine,
  malformedOf,
  parseEventLine,
  parseEventTags,
  readEventsSince,
} from '../../state/events-log.ts';
import { overwriteLinesInPlace } from '../../state/io/overwrite-lines.ts';
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
 * Where agent events enter the loop: each is redacted here, before the pending queue, the stale-loop
 * signature or a prompt sees it (`ralph emit` redacts too, but an agent may write the file itself).
 * With `cleanFile`, a line read that holds a secret is also rewritten redacted in the file, so
 * `ralph events` and every later reader of it get it redacted too.
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
  /** The run's redaction (observe/redact.ts). */
  redact: (text: string) => string;
  /** Rewrite the lines read that hold a secret (the loop does; a dry run touches nothing). */
  cleanFile: boolean;
}): Collected {
  const { redact } = opts;
  const chunk = readEventsSince(opts.eventsFile, opts.offset);
  // Every line, loop-written ones too: an agent can forge a `source`. Checked in memory first, so a
  // read with no secret writes nothing.
  if (opts.cleanFile && chunk.items.some((item) => redactLine(item.line, redact) !== undefined)) {
    // A file that had shrunk below the offset was read from its start.
    const start = chunk.nextOffset < opts.offset ? 0 : opts.offset;
    overwriteLinesInPlace(opts.eventsFile, start, chunk.nextOffset, (line) => redactLine(line, redact));
  }
  const published: PendingEvent[] = [];
  const malformed: MalformedLine[] = [];
  let streak = opts.streak;
  for (const item of chunk.items) {
    if (!item.ok) {
      malformed.push(redactedMalformed(item, redact));
      streak++;
      continue;
    }
    streak = 0;
    if (item.value.source !== undefined) continue;
    published.push({
      topic: redact(item.value.topic),
      payload: redactDeep(item.value.payload, redact),
      source: opts.defaultSource,
      iteration: opts.iteration,
    });
  }
  if (opts.finalText) {
    // The final text comes redacted from the agent turn (agent-turn.ts).
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

/**
 * A line that is not an event, redacted: JSON.parse's message quotes the start of the line, so a
 * line that held a secret is judged again as redacted.
 */
function redactedMalformed(item: MalformedLine, redact: (text: string) => string): MalformedLine {
  const line = redact(item.line);
  if (line === item.line) return malformedOf(item);
  const again = parseEventLine(line);
  return malformedOf({ line, error: 'error' in again ? again.error : redact(item.error) });
}

/** Events published from outside an iteration (e.g. `ralph emit` in another terminal) since the last read. */
export function readExternalEvents(ctx: RunContext): Collected {
  return externalEventsSince(ctx.eventsFile, ctx.state, ctx.redact, true);
}

/** The same for a run's state read from disk (`ralph run --resume --dry-run`: `cleanFile` false). */
export function externalEventsSince(
  eventsFile: string,
  state: Pick<LoopState, 'events_offset' | 'malformed_streak'>,
  redact: (text: string) => string,
  cleanFile: boolean,
): Collected {
  return collectEvents({
    eventsFile,
    offset: state.events_offset,
    streak: state.malformed_streak,
    iteration: null,
    hat: null,
    finalText: null,
    defaultSource: 'external',
    redact,
    cleanFile,
  });
}
