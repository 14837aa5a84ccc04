import {
  chmodSync,
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSystemError } from '../../src/errors.ts';
import {
  appendText,
  copyFile,
  moveFile,
  removeFile,
  replaceFile,
  writeFileInPlace,
  writeSymlink,
} from '../../src/state/io/file-writes.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

/** The paths of the durable writes traced while `fn` runs (RALPH_FAULT_TRACE_WRITES). */
function tracedWrites(dir: string, fn: () => void): string[] {
  const trace = join(dir, '..', `${dir.split('/').at(-1)}.trace.jsonl`);
  writeFileSync(trace, '');
  process.env.RALPH_FAULT_TRACE_WRITES = trace;
  try {
    fn();
  } finally {
    delete process.env.RALPH_FAULT_TRACE_WRITES;
  }
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { path: string }).path);
}

afterEach(() => {
  delete process.env.RALPH_FAULT_TRACE_WRITES;
  delete process.env.RALPH_FAULT_ERRNO_AT_WRITE;
});

describe('the durable writes of file-writes.ts (one write of the fault layer each)', () => {
  it('appends, moves, copies, links, replaces and writes in place, each traced once at its target', () => {
    const dir = makeWorkspace({ 'a.md': 'one\n', 'tool.sh': '#!/bin/sh\n', 'real.yml': 'x: 1\n' });
    chmodSync(join(dir, 'tool.sh'), 0o755);
    symlinkSync(join(dir, 'real.yml'), join(dir, 'ralph.yml'));
    const p = (name: string) => join(dir, name);
    const writes = tracedWrites(dir, () => {
      appendText(p('a.md'), 'two\n');
      moveFile(p('a.md'), p('b.md'));
      copyFile(p('tool.sh'), p('copy.sh'));
      writeSymlink('b.md', p('link'));
      replaceFile(p('link'), 'plain\n', 0o600);
      writeFileInPlace(p('ralph.yml'), 'x: 2\n');
    });
    expect(writes).toEqual(['a.md', 'b.md', 'copy.sh', 'link', 'link', 'ralph.yml'].map(p));
    expect(readFileSync(p('b.md'), 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(p('a.md'))).toBe(false);
    expect(statSync(p('copy.sh')).mode & 0o777).toBe(0o755);
    // The link was replaced by a file, never written through.
    expect(lstatSync(p('link')).isFile()).toBe(true);
    expect(statSync(p('link')).mode & 0o777).toBe(0o600);
    expect(readFileSync(p('b.md'), 'utf8')).toBe('one\ntwo\n');
    // The user's ralph.yml is written through its link, which stays.
    expect(readlinkSync(p('ralph.yml'))).toBe(p('real.yml'));
    expect(readFileSync(p('real.yml'), 'utf8')).toBe('x: 2\n');
  });

  it('removes a file or a folder as one write; nothing there is no write at all', () => {
    const dir = makeWorkspace({ 'stop-request': '', 'old/run/x.json': '{}' });
    const writes = tracedWrites(dir, () => {
      removeFile(join(dir, 'stop-request'));
      removeFile(join(dir, 'stop-request'));
      removeFile(join(dir, 'old'), { recursive: true });
      removeFile(join(dir, 'never-was'));
    });
    expect(writes).toEqual([join(dir, 'stop-request'), join(dir, 'old')]);
    expect(existsSync(join(dir, 'old'))).toBe(false);
  });

  it('a failed write names the file and the fix, and leaves what was there', () => {
    const dir = makeWorkspace({ 'journal.md': 'kept\n' });
    const file = join(dir, 'journal.md');
    // The layer counts writes per process: the next one is the traced one's number plus one.
    const trace = join(dir, '..', `${dir.split('/').at(-1)}.n.jsonl`);
    process.env.RALPH_FAULT_TRACE_WRITES = trace;
    appendText(file, '');
    const n = (JSON.parse(readFileSync(trace, 'utf8').trim()) as { n: number }).n;
    delete process.env.RALPH_FAULT_TRACE_WRITES;
    process.env.RALPH_FAULT_ERRNO_AT_WRITE = `${n + 1}:ENOSPC`;
    expect(() => appendText(file, 'lost\n')).toThrow(FileSystemError);
    process.env.RALPH_FAULT_ERRNO_AT_WRITE = `${n + 2}:ENOSPC`;
    expect(() => removeFile(file)).toThrow(
      /^cannot write .*journal\.md: no space left on device \(ENOSPC\): free some space/,
    );
    expect(readFileSync(file, 'utf8')).toBe('kept\n');
  });
});
