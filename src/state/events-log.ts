import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { RalphError } from '../errors.ts';
import { appendLine } from './io/append-line.ts';
import { anyJson, followJsonl, type JsonlChunk, type LineParser, readJsonlSince } from './io/jsonl.ts';
import { ralphPaths } from './paths.ts';

/** One line of a run's events file (DESIGN.md §1): agent-emitted lines have topic/payload/ts only. */
export interface EventLine {
  topic: string;
  payload: unknown;
  ts: string;
  iteration?: number;
  hat?: string | null;
  source?: string;
  /** Agent waves: the member of the iteration's wave that published it. */
  wave_member?: number;
}

export interface MalformedLine {
  line: string;
  error: string;
}

const TOPIC = /^[^\s"<>]+$/;

/**
 * The longest events-file line that is an event, in characters: a payload goes into `state.json`
 * (written at every step) and the next prompt, so a larger one is a damaged line, not a cost.
 */
export const MAX_EVENT_LINE_CHARS = 1024 * 1024;

/** Parses one events-file line; an error message when it is not a valid event. */
export function parseEventLine(line: string): { event: EventLine } | { error: string } {
  if (line.length > MAX_EVENT_LINE_CHARS) return { error: `longer than ${MAX_EVENT_LINE_CHARS} characters` };
  const parsed = anyJson(line);
  if ('error' in parsed) return parsed;
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'not a JSON object' };
  const obj = value as Record<string, unknown>;
  if (typeof obj.topic !== 'string' || !TOPIC.test(obj.topic)) return { error: 'missing or invalid "topic"' };
  return {
    event: {
      ...obj,
      topic: obj.topic,
      payload: obj.payload ?? null,
      ts: typeof obj.ts === 'string' ? obj.ts : '',
    } as EventLine,
  };
}

/**
 * Reads the complete lines appended to `file` since `offset`. A last line without its newline is
 * left for the next read (an emitter may be mid-write); lines that are not events are items with
 * their error, in file order.
 */
export function readEventsSince(file: string, offset: number): JsonlChunk<EventLine> {
  return readJsonlSince(file, offset, eventLineParser);
}

/** A line that is not an event, shortened for a report. */
export function malformedOf(item: { line: string; error: string }): MalformedLine {
  const { line, error } = item;
  return { line: line.length > 200 ? `${line.slice(0, 200)}…` : line, error };
}

/** The run's events file named by `.ralph/current-events` (relative to the workspace, or absolute). */
export function eventsFileOf(workspace: string): string {
  let rel: string;
  try {
    rel = readFileSync(ralphPaths(workspace).currentEvents, 'utf8').trim();
  } catch {
    throw new RalphError(
      'no_events_file',
      'no events file: RALPH_EVENTS_FILE is unset and .ralph/current-events does not exist (run inside a ralph loop)',
    );
  }
  return isAbsolute(rel) ? rel : join(workspace, rel);
}

/** parseEventLine as a JSON-lines parser (for the toolkit's readers and followers). */
export const eventLineParser: LineParser<EventLine> = (line) => {
  const parsed = parseEventLine(line);
  return 'event' in parsed ? { value: parsed.event } : parsed;
};

/** Appends one event line (loop-written events carry iteration, hat and source). */
export function appendEvent(file: string, event: EventLine): void {
  appendLine(file, JSON.stringify(event));
}

/**
 * The directory of an agent wave's member events files, beside the run's events file (so the
 * runtime ignore of `.ralph/events-*` and the sandbox's agent-writable files cover it).
 */
export function waveDirOf(eventsFile: string): string {
  return `${eventsFile.replace(/\.jsonl$/, '')}.waves`;
}

/** Appends event lines in one write: a crash leaves all of them or none. */
export function appendEvents(file: string, events: readonly EventLine[]): void {
  if (events.length > 0) appendLine(file, events.map((e) => JSON.stringify(e)).join('\n'));
}

/** `<event topic="t">payload</event>` tags in an agent's final text, in order. */
export function parseEventTags(text: string): { topic: string; payload: unknown }[] {
  const out: { topic: string; payload: unknown }[] = [];
  const re = /<event\s+topic\s*=\s*["']([^"'\s<>]+)["']\s*(?:\/>|>([\s\S]*?)<\/event>)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const body = m[2]?.trim();
    out.push({ topic: m[1]!, payload: body ? body : null });
  }
  return out;
}

/** How `readEvents` reads: once to the end, or following the file as the loop appends. */
export interface ReadEventsOptions {
  /** Keep yielding events as they are appended, until `signal` aborts (`ralph events -f`). */
  follow?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Pause between reads while following (default 250 ms). */
  intervalMs?: number | undefined;
}

/**
 * The events of a workspace's current run (`.ralph/current-events`), oldest first, as `ralph events`
 * reads them; with `follow`, then each event as it is appended until `signal` aborts. Lines that are
 * not events (damaged, or a last line still being written) are skipped and left in the file. The
 * iteration throws `no_events_file` when the workspace has no run yet.
 */
export async function* readEvents(workspace: string, o: ReadEventsOptions = {}): AsyncGenerator<EventLine> {
  const file = eventsFileOf(workspace);
  if (!o.follow) {
    yield* readEventsSince(file, 0).records;
    return;
  }
  for await (const chunk of followJsonl(file, eventLineParser, o)) yield* chunk.records;
}
