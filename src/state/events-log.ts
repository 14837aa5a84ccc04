import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { appendLine } from './append-line.ts';

/** One line of a run's events file (DESIGN.md §1): agent-emitted lines have topic/payload/ts only. */
export interface EventLine {
  topic: string;
  payload: unknown;
  ts: string;
  iteration?: number;
  hat?: string | null;
  source?: string;
}

export interface MalformedLine {
  line: string;
  error: string;
}

export interface EventsChunk {
  /** Valid events and malformed lines, in file order. */
  items: ({ ok: true; event: EventLine } | { ok: false; malformed: MalformedLine })[];
  /** Byte offset just after the last complete line read. */
  nextOffset: number;
}

const TOPIC = /^[^\s"<>]+$/;

/** Parses one events-file line; an error message when it is not a valid event. */
export function parseEventLine(line: string): { event: EventLine } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { error: `not JSON (${(error as Error).message})` };
  }
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
 * left for the next read (an emitter may be mid-write).
 */
export function readEventsSince(file: string, offset: number): EventsChunk {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { items: [], nextOffset: offset };
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return { items: [], nextOffset: size < offset ? 0 : offset };
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    const end = buf.lastIndexOf(0x0a);
    if (end < 0) return { items: [], nextOffset: offset };
    const text = buf.subarray(0, end).toString('utf8');
    const items: EventsChunk['items'] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const parsed = parseEventLine(line);
      if ('event' in parsed) items.push({ ok: true, event: parsed.event });
      else
        items.push({
          ok: false,
          malformed: { line: line.length > 200 ? `${line.slice(0, 200)}…` : line, error: parsed.error },
        });
    }
    return { items, nextOffset: offset + end + 1 };
  } finally {
    closeSync(fd);
  }
}

/** Appends one event line (loop-written events carry iteration, hat and source). */
export function appendEvent(file: string, event: EventLine): void {
  appendLine(file, JSON.stringify(event));
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
