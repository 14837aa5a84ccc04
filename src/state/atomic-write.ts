import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { durableWrite } from './write-faults.ts';

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
 * Writes a file so readers see either the old or the new content, never a torn one: a temp file
 * (`<name>.<digits>`, removed at the next start if a crash leaves it) is written, flushed and renamed
 * over the target. `fsync: false` skips the flush: still atomic against a crash of Ralph (kill -9),
 * only not against a power loss — for frequent bookkeeping whose loss costs nothing.
 */
export function writeFileAtomicSync(path: string, content: string, options: { fsync?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  durableWrite(() => {
    const tmp = `${path}.${process.pid}${String(++sequence).padStart(6, '0')}`;
    const fd = openSync(tmp, 'w', modeOf(path));
    try {
      writeSync(fd, content);
      if (options.fsync ?? true) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(tmp, path);
    } catch (error) {
      rmSync(tmp, { force: true });
      throw error;
    }
  });
}

export function writeJsonAtomicSync(path: string, value: unknown, options: { fsync?: boolean } = {}): void {
  writeFileAtomicSync(path, `${JSON.stringify(value, null, 2)}\n`, options);
}
