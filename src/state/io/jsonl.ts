import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Turns one line into a record, or says why it is not one. */
export type LineParser<T> = (line: string) => { value: T } | { error: string };

/** One non-blank line of a JSON-lines text: its record, or the line and why it is not one. */
export type JsonlItem<T> = { n: number; line: string } & (
  | { ok: true; value: T }
  | { ok: false; error: string }
);

/** The lines of a JSON-lines text (blank lines skipped), in order. */
export interface JsonlRead<T> {
  items: JsonlItem<T>[];
  records: T[];
}

/** What was appended since an offset; a last line without its newline is left for the next read. */
export interface JsonlChunk<T> extends JsonlRead<T> {
  /** Byte offset just after the last complete line read. */
  nextOffset: number;
}

/**
 * Deeper than any record Ralph writes or an event needs: a deeper line is damaged, since every
 * recursive walk of a value (redaction, JSON.stringify, describeEvent) would overflow the stack on it.
 */
export const MAX_JSON_DEPTH = 64;

/** Any JSON value nested at most MAX_JSON_DEPTH deep; the error says why a line is not one. */
export const anyJson: LineParser<unknown> = (line) => {
  let value: unknown;
  try {
    value = JSON.parse(line) as unknown;
  } catch (error) {
    return { error: `not JSON (${(error as Error).message})` };
  }
  if (typeof value === 'object' && value !== null && nestedDeeper(line, MAX_JSON_DEPTH))
    return { error: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  return { value };
};

/** True when the JSON text `text` opens more than `max` arrays or objects inside each other (one scan, no recursion). */
export function nestedDeeper(text: string, max: number): boolean {
  // Each level costs at least one character: a short text cannot be deeper.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** A JSON line whose value passes `accept` (a record type's shape check). */
export function jsonWhere<T>(accept: (value: unknown) => value is T, what = 'a record'): LineParser<T> {
  return (line) => {
    const parsed = anyJson(line);
    if ('error' in parsed) return parsed;
    return accept(parsed.value) ? { value: parsed.value } : { error: `not ${what}` };
  };
}

/** Parses a JSON-lines text (pure). Line numbers count blank lines; a CRLF line ending is accepted. */
export function parseJsonl<T>(text: string, parse: LineParser<T>): JsonlRead<T> {
  const items: JsonlItem<T>[] = [];
  const records: T[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const parsed = parse(line);
    if ('value' in parsed) {
      items.push({ n: i + 1, line, ok: true, value: parsed.value });
      records.push(parsed.value);
    } else items.push({ n: i + 1, line, ok: false, error: parsed.error });
  });
  return { items, records };
}

/** A line a reader skipped: its number and why it is not a record. */
export interface SkippedLine {
  n: number;
  error: string;
}

/** The lines of a read that were not records. */
export function skippedLines(items: readonly JsonlItem<unknown>[]): SkippedLine[] {
  return items.flatMap((i) => (i.ok ? [] : [{ n: i.n, error: i.error }]));
}

/**
 * The one notice of a reader that skipped damaged lines (an agent or a crash can write any line):
 * which file, which lines, why the first is not a record, and that the file is left alone.
 */
export function skippedNotice(file: string, skipped: readonly SkippedLine[]): string {
  const first = skipped[0];
  const lines = skipped.slice(0, 5).map((s) => s.n);
  const more = skipped.length > 5 ? ` and ${skipped.length - 5} more` : '';
  const why = skipped.length > 1 ? `line ${first?.n}: ${first?.error}` : first?.error;
  return `${file}: skipped damaged line${skipped.length > 1 ? 's' : ''} ${lines.join(', ')}${more} (${why}); the file is left as it is`;
}

/** A whole JSON-lines file; a missing or unreadable file has no lines (the callers treat it as empty). */
export function readJsonl<T>(path: string, parse: LineParser<T>): JsonlRead<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { items: [], records: [] };
  }
  return parseJsonl(text, parse);
}

/**
 * The bytes of `path` from `offset` to its end, and the offset after them. A file shorter than
 * `offset` was replaced or truncated: it is read from its start. A missing file reads as empty at 0.
 */
export function readTextSince(path: string, offset: number): { text: string; nextOffset: number } {
  const { buf, start } = bytesSince(path, offset);
  return { text: buf.toString('utf8'), nextOffset: start + buf.length };
}

/**
 * The complete lines appended to `path` since `offset` (see readTextSince for a shrunk or missing
 * file). `maxBytes` bounds one read: the next read goes on from `nextOffset`; a single line longer
 * than `maxBytes` is skipped (read as a torn line) rather than stall the reader.
 */
export function readJsonlSince<T>(
  path: string,
  offset: number,
  parse: LineParser<T>,
  o: { maxBytes?: number } = {},
): JsonlChunk<T> {
  const { buf, start, more } = bytesSince(path, offset, o.maxBytes);
  // '\n' is one byte that never occurs inside a UTF-8 sequence: the cut never splits a character.
  const end = buf.lastIndexOf(0x0a);
  if (end < 0) return { items: [], records: [], nextOffset: more ? start + buf.length : start };
  return { ...parseJsonl(buf.subarray(0, end).toString('utf8'), parse), nextOffset: start + end + 1 };
}

function bytesSince(
  path: string,
  offset: number,
  maxBytes = Number.POSITIVE_INFINITY,
): { buf: Buffer; start: number; more: boolean } {
  // Nothing appended (the usual answer when polled every iteration): a stat, not an open and a read.
  let fd: number;
  try {
    if (statSync(path).size === offset) return { buf: Buffer.alloc(0), start: offset, more: false };
    fd = openSync(path, 'r');
  } catch {
    return { buf: Buffer.alloc(0), start: 0, more: false };
  }
  try {
    const size = fstatSync(fd).size;
    const start = size < offset ? 0 : offset;
    const buf = Buffer.alloc(Math.min(size - start, maxBytes));
    const n = readSync(fd, buf, 0, buf.length, start);
    return { buf: buf.subarray(0, n), start, more: start + n < size };
  } finally {
    closeSync(fd);
  }
}

export interface PollOptions {
  /** Ends the iteration (at once, also mid-wait). */
  signal?: AbortSignal | undefined;
  /** Pause between reads (default 250 ms). */
  intervalMs?: number | undefined;
  /** How the pause is waited (default node:timers/promises' setTimeout; a test passes its fake clock's). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<unknown>) | undefined;
}

/** Calls `read` now and then every `intervalMs` until `signal` aborts, yielding each result. */
export async function* poll<T>(read: () => T | Promise<T>, o: PollOptions = {}): AsyncGenerator<T> {
  while (!o.signal?.aborted) {
    yield await read();
    try {
      const ms = o.intervalMs ?? 250;
      await (o.sleep ? o.sleep(ms, o.signal) : sleep(ms, undefined, { signal: o.signal }));
    } catch {
      return; // aborted mid-wait
    }
  }
}

export interface FollowOptions extends PollOptions {
  /** Byte offset to start at (default 0: the whole file, then what is appended). */
  from?: number | undefined;
  /**
   * Asked when a read found nothing new: true ends the follow after one last read (a writer that
   * has finished may have appended its last lines just before it said so).
   */
  done?: (() => boolean | Promise<boolean>) | undefined;
}

async function* follow<C extends { nextOffset: number }>(
  read: (offset: number) => C,
  isEmpty: (chunk: C) => boolean,
  o: FollowOptions,
): AsyncGenerator<C> {
  let offset = o.from ?? 0;
  for await (const chunk of poll(() => read(offset), o)) {
    offset = chunk.nextOffset;
    if (!isEmpty(chunk)) yield chunk;
    else if (o.done && (await o.done())) {
      const last = read(offset);
      if (!isEmpty(last)) yield last;
      return;
    }
  }
}

/** Follows a text file (`tail -f`): each yield is the text appended since the last one. */
export async function* followFile(path: string, o: FollowOptions = {}): AsyncGenerator<string> {
  for await (const chunk of follow(
    (at) => readTextSince(path, at),
    (c) => c.text === '',
    o,
  ))
    yield chunk.text;
}

/** Follows a JSON-lines file: each yield is the complete lines appended since the last one. */
export function followJsonl<T>(
  path: string,
  parse: LineParser<T>,
  o: FollowOptions = {},
): AsyncGenerator<JsonlChunk<T>> {
  return follow(
    (at) => readJsonlSince(path, at, parse),
    (c) => c.items.length === 0,
    o,
  );
}
