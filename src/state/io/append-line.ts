import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { writeFileAtomicSync } from './atomic-write.ts';
import { anyJson, readJsonl } from './jsonl.ts';
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

/**
 * Appends `value` as a JSON line unless a line for the same key is there already (`sameKey`): then
 * that line is replaced, in one atomic rewrite of the file, so a step re-run after a crash between
 * its append and the state save that committed it leaves one line, the one the state knows.
 * Other lines (torn ones included) are kept as they are.
 */
export function appendOrReplaceLine(
  path: string,
  value: object,
  sameKey: (existing: unknown) => boolean,
): void {
  const line = JSON.stringify(value);
  const read = readJsonl(path, anyJson);
  const stale = read.items.filter((i) => i.ok && sameKey(i.value));
  if (stale.length === 0) {
    appendLine(path, line);
    return;
  }
  const kept = read.items.filter((i) => !stale.includes(i)).map((i) => i.line);
  writeFileAtomicSync(path, `${[...kept, line].join('\n')}\n`);
}
