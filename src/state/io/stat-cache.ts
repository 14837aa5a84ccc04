import { createHash } from 'node:crypto';
import { type BigIntStats, readFileSync, statSync } from 'node:fs';
import { readOptional, type UnreadableFile } from './read-optional.ts';

/**
 * A file's identity, size and change times (`ino:size:mtimeNs:ctimeNs`), or `-` when it is missing.
 * A write, a truncation, a rename over it or a chmod changes it: ctime moves with every change to
 * the file's content or metadata, and the kernel cannot set it back (utimes sets mtime, not ctime).
 */
export function statKey(path: string): string {
  return keyOf(statSync(path, { throwIfNoEntry: false, bigint: true }));
}

function keyOf(st: BigIntStats | undefined): string {
  return st ? `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : '-';
}

/**
 * A change this recent may be followed by another within the same timestamp tick (a coarse clock,
 * a file system with 1–2 s times): such a file is never answered from the cache, as git treats its
 * "racily clean" entries.
 */
export const RACY_WINDOW_MS = 2000;
const RACY_NS = BigInt(RACY_WINDOW_MS) * 1_000_000n;

/**
 * The statKey of a file whose last change is older than the racy window, else undefined: a value
 * keyed on it may be kept. A missing file (`-`) is settled: creating it changes the key.
 */
export function settledStatKey(path: string, nowMs: number = Date.now()): string | undefined {
  const st = statSync(path, { throwIfNoEntry: false, bigint: true });
  if (st !== undefined && BigInt(nowMs) * 1_000_000n - st.ctimeNs < RACY_NS) return undefined;
  return keyOf(st);
}

/** `compute(path)` remembered per path, computed again whenever the path's statKey differs. */
export type StatCached<T> = (path: string) => T;

/**
 * Remembers what `compute` made of a file and gives it back while the file's statKey is unchanged;
 * a file changed within the racy window is computed every time. A missing file is stated, never
 * opened, while it stays missing. What `compute` throws is not remembered. Past `maxEntries`
 * paths it starts again (a bound, not an expected size). The one stat-keyed cache of the hot path:
 * a caller does not keep its own.
 */
export function statCached<T>(compute: (path: string) => T, maxEntries = 10_000): StatCached<T> {
  const known = new Map<string, { key: string; value: T }>();
  return (path) => {
    const key = settledStatKey(path);
    const hit = known.get(path);
    if (key !== undefined && hit?.key === key) return hit.value;
    const value = compute(path);
    if (key === undefined) known.delete(path);
    else {
      if (known.size >= maxEntries) known.clear();
      known.set(path, { key, value });
    }
    return value;
  };
}

/** Texts kept (a run reads a handful: scratchpads, memories, tasks); whole files, so few. */
const MAX_TEXTS = 64;

/** `{ text }` of a file, or `{ missing }` when it does not exist; other read errors throw. */
export type FileText = { text: string } | { missing: true };

/**
 * A file's UTF-8 text, read again only when its statKey changed (the prompt's scratchpad and
 * memories, the tasks file: read every iteration, changed now and then). Strings are immutable, so
 * every caller may share the one copy.
 */
export const readTextCached: StatCached<FileText> = statCached((path) => {
  const text = readOptional(path, 'throw');
  return text === undefined ? { missing: true } : { text };
}, MAX_TEXTS);

/**
 * readOptional's contract answered from readTextCached: the text, or undefined when the file is
 * missing (stated, not opened) or, with `'absent'`, unreadable.
 */
export function readOptionalCached(path: string, unreadable: UnreadableFile): string | undefined {
  try {
    const read = readTextCached(path);
    return 'text' in read ? read.text : undefined;
  } catch (error) {
    if (unreadable === 'absent') return undefined;
    throw error;
  }
}

/** A file's sha256, read in full (throws when it cannot be read). */
export function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

const hashCached = statCached(sha256Of);

/**
 * The file's sha256, or null when it cannot be read. A file whose identity, size and change times
 * are as when it was last hashed is not read again (every iteration checks every protected file).
 */
export function hashFile(path: string): string | null {
  try {
    return hashCached(path);
  } catch {
    return null;
  }
}
