import { writeFileAtomicSync } from './atomic-write.ts';
import { withFileLock } from './file-lock.ts';
import { readOptional } from './read-optional.ts';
import { readOptionalCached } from './stat-cache.ts';

/**
 * A new text for a file, or undefined to leave it as it is. Called on the file's whole text.
 */
export type TextEdit = (text: string) => string | undefined;

/**
 * Rewrites the small file `path` as `edit` says: under its file lock (the one `ralph tools` takes
 * for a read-modify-write of it), atomically through the write layer. Nothing is written, and no lock
 * taken, when `edit` changes nothing; a missing or unreadable file is left alone. Returns whether it
 * wrote. A lock that cannot be had within its wait is written past: the caller runs when the agent's
 * processes are gone, so its holder is planted or stuck, and what the edit removes must not stay.
 */
export function rewriteFile(path: string, edit: TextEdit): boolean {
  // Run after every agent turn on files that rarely change: the look is stat-keyed, the write's read is not.
  const first = readOptionalCached(path, 'absent');
  if (first === undefined || changed(first, edit) === undefined) return false;
  let started = false;
  const apply = (): boolean => {
    started = true;
    const text = readOptional(path, 'absent');
    const next = text === undefined ? undefined : changed(text, edit);
    if (next === undefined) return false;
    writeFileAtomicSync(path, next);
    return true;
  };
  try {
    return withFileLock(path, apply);
  } catch (error) {
    if (started) throw error;
    return apply();
  }
}

function changed(text: string, edit: TextEdit): string | undefined {
  const next = edit(text);
  return next === undefined || next === text ? undefined : next;
}
