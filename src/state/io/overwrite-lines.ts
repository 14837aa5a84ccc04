import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { durableWrite } from './write-faults.ts';

/**
 * A new text for one line (without its line ending), or undefined to keep it. It must not be longer
 * in UTF-8 bytes than the line: a longer one is written as a blank line.
 */
export type LineEdit = (line: string) => string | undefined;

/**
 * Rewrites the complete lines of `path` between byte offsets `from` and `to` in place, each as `edit`
 * says, padded with spaces to its old length. Why in place and not a temp file renamed over it: the
 * file's size and every line's offset stay as they were, so a writer appending with O_APPEND at that
 * moment (`ralph emit`, `ralph answer`, an agent's `>>`, none of which takes a lock) lands after the
 * rewritten bytes and is never lost, and a reader following the file by offset (`ralph events -f`,
 * the dashboard, the loop's own events offset) reads on unaffected. The changed span is one
 * positioned write, flushed, through the fault layer. Nothing is written when no line changes (the
 * caller checks first on the lines it read). Returns how many lines changed; a file that is gone or
 * shorter than `to` (replaced meanwhile) is left alone: 0.
 */
export function overwriteLinesInPlace(path: string, from: number, to: number, edit: LineEdit): number {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch {
    return 0;
  }
  try {
    if (fstatSync(fd).size < to || to <= from) return 0;
    const buf = Buffer.alloc(to - from);
    const read = readSync(fd, buf, 0, buf.length, from);
    const span = editLines(buf.subarray(0, read), edit);
    if (span === undefined) return 0;
    durableWrite(path, () => {
      for (let off = span.start; off < span.end; ) off += writeSync(fd, buf, off, span.end - off, from + off);
      fsyncSync(fd);
    });
    return span.changed;
  } finally {
    closeSync(fd);
  }
}

/**
 * Applies `edit` to each complete line of `buf` in place (a last line without its newline is not
 * complete: left alone); the bytes from the first to the last changed one, or undefined for none.
 */
function editLines(buf: Buffer, edit: LineEdit): { start: number; end: number; changed: number } | undefined {
  let start = -1;
  let end = -1;
  let changed = 0;
  for (let s = 0, nl = buf.indexOf(0x0a); nl >= 0; s = nl + 1, nl = buf.indexOf(0x0a, s)) {
    // A CRLF ending stays: the edit sees and replaces the line without its `\r`.
    const e = nl > s && buf[nl - 1] === 0x0d ? nl - 1 : nl;
    const line = buf.toString('utf8', s, e);
    const next = edit(line);
    if (next === undefined || next === line) continue;
    const bytes = Buffer.from(next);
    const fits = bytes.length <= e - s;
    buf.fill(0x20, s, e);
    if (fits) bytes.copy(buf, s);
    if (start < 0) start = s;
    end = e;
    changed++;
  }
  return changed === 0 ? undefined : { start, end, changed };
}
