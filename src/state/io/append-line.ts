import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { durableWrite, writeAll } from './write-faults.ts';

/**
 * Appends one line to a JSON-lines file. When the file's last line is torn (a crash mid-write left
 * it without its newline), the new line starts on a line of its own instead of being glued onto
 * the torn one and lost with it; readers then see the torn line alone and report it. A failure (a
 * full or read-only disk) is a RalphError naming `path`.
 */
export function appendLine(path: string, line: string): void {
  durableWrite(path, () => appendLineNow(path, line));
}

function appendLineNow(path: string, line: string): void {
  const fd = openSync(path, 'a+');
  try {
    const size = fstatSync(fd).size;
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    // O_APPEND: the write lands at the end even when another process appended meanwhile.
    writeAll(fd, `${prefix}${line}\n`);
  } finally {
    closeSync(fd);
  }
}
