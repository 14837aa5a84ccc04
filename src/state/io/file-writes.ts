import {
  chmodSync,
  closeSync,
  copyFileSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { durableWrite, writeAll } from './write-faults.ts';

/**
 * The durable writes that are not a whole file's content (writeFileAtomicSync) or a JSON line
 * (appendLine): text appended, a file moved, copied, linked or removed. Each is one write of the
 * fault layer (counted, failed or died at on request; a failure names the file).
 */

/** Appends `text` to `path` (made when missing): a journal, a report gathered by Ralph. */
export function appendText(path: string, text: string): void {
  durableWrite(path, () => {
    const fd = openSync(path, 'a');
    try {
      writeAll(fd, text);
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * Writes `content` to the user's file `path` in place, as an editor would (through a symbolic
 * link, keeping its inode, no temp file beside it): the files `ralph new` makes, the ralph.yml
 * `ralph init` adjusts. Ralph's own files are replaced whole by writeFileAtomicSync.
 */
export function writeFileInPlace(path: string, content: string): void {
  durableWrite(path, () => writeFileSync(path, content));
}

/** Renames `from` to `to` (replacing a file there). */
export function moveFile(from: string, to: string): void {
  durableWrite(to, () => renameSync(from, to));
}

/** Copies `from` to `to` with its permissions (replacing a file there). */
export function copyFile(from: string, to: string): void {
  durableWrite(to, () => copyFileSync(from, to));
}

/**
 * Replaces the work-tree file `path` with `content` (and exactly `mode`, when given): removed first, so a
 * symbolic link there is replaced, never written through, and no temp file is left beside it in
 * the work tree (where git would see it) should Ralph be killed half-way.
 */
export function replaceFile(path: string, content: string | Uint8Array, mode?: number): void {
  durableWrite(path, () => {
    rmSync(path, { force: true });
    writeFileSync(path, content);
    if (mode !== undefined) chmodSync(path, mode);
  });
}

/** Makes `path` a symbolic link to `target`, replacing what was there (never written through). */
export function writeSymlink(target: string, path: string): void {
  durableWrite(path, () => {
    rmSync(path, { force: true });
    symlinkSync(target, path);
  });
}

/**
 * Removes the file at `path` (with `recursive`, a folder and what it holds). Nothing there is no
 * write at all, so a run where the file is absent keeps the same write points.
 */
export function removeFile(path: string, o: { recursive?: boolean } = {}): void {
  try {
    lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
  }
  durableWrite(path, () => rmSync(path, { force: true, recursive: o.recursive ?? false }));
}
