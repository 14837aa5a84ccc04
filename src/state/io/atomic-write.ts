import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { durableWrite, writeAll } from './write-faults.ts';

let sequence = 0;

/** The existing file's permission bits, so a rewrite keeps them (a user's 0600 stays 0600). */
function modeOf(path: string): number {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return 0o644;
  }
}

/**
 * Opens (creating) `path`, making its directory when it is missing: the directory exists on every
 * write but the first, so it is made only after an open failed with ENOENT (a `mkdir -p` before
 * each write cost two system calls of every state write).
 */
export function openMakingDir(path: string, flags: string | number, mode: number): number {
  try {
    return openSync(path, flags, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, flags, mode);
  }
}

/**
 * Writes a file so readers see either the old or the new content, never a torn one: a temp file
 * (`<name>.<digits>`, removed at the next start if a crash leaves it) is written, flushed and renamed
 * over the target. `fsync: false` skips the flush: still atomic against a crash of Ralph (kill -9),
 * only not against a power loss — for frequent bookkeeping whose loss costs nothing. A missing
 * directory is made; a failure (a full or read-only disk) is a RalphError naming `path`, and leaves
 * the old content.
 */
export function writeFileAtomicSync(
  path: string,
  content: string | Uint8Array,
  options: { fsync?: boolean } = {},
): void {
  durableWrite(path, () => replaceFileSync(path, content, options.fsync ?? true));
}

/**
 * The temp-file-and-rename of writeFileAtomicSync without its bookkeeping: for a cache whose loss
 * costs nothing (not a durable write of the run, so the fault injection does not count it), whose
 * caller treats any failure as "no cache". `mode`: the new file's permissions (default: the old
 * file's, else 0644).
 */
export function replaceFileSync(
  path: string,
  content: string | Uint8Array,
  fsync: boolean,
  mode?: number,
): void {
  const tmp = `${path}.${process.pid}${String(++sequence).padStart(6, '0')}`;
  const fd = openMakingDir(tmp, 'w', mode ?? modeOf(path));
  try {
    try {
      writeAll(fd, content);
      if (fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    // A full disk mid-write or a failed rename: no half-written temp file is left behind.
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Writes `value` as JSON like writeFileAtomicSync; returns the text written. */
export function writeJsonAtomicSync(path: string, value: unknown, options: { fsync?: boolean } = {}): string {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  writeFileAtomicSync(path, text, options);
  return text;
}
