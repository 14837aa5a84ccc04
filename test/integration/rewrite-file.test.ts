import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/observe/redact.ts';
import { withFileLock } from '../../src/state/io/file-lock.ts';
import { rewriteFile } from '../../src/state/io/rewrite-file.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

const KEY = 'acme-Zq8vR2pL9xW4tY7u-rw';
const redact = createRedactor({ ACME_API_KEY: KEY });

/** The durable writes traced while `fn` runs (RALPH_FAULT_TRACE_WRITES). */
function tracedWrites(dir: string, fn: () => void): number {
  const trace = join(dir, 'trace.jsonl');
  writeFileSync(trace, '');
  process.env.RALPH_FAULT_TRACE_WRITES = trace;
  try {
    fn();
  } finally {
    delete process.env.RALPH_FAULT_TRACE_WRITES;
  }
  return readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
}

afterEach(() => {
  delete process.env.RALPH_FAULT_TRACE_WRITES;
});

describe('rewriteFile (the agent files cleaned of secrets)', () => {
  it('writes once, through the write layer, only when the edit changes the text; a missing file is left alone', () => {
    const dir = makeWorkspace();
    const file = join(dir, 'memories.md');
    writeFileSync(file, `# Memories\nkey ${KEY}\n`);
    expect(tracedWrites(dir, () => expect(rewriteFile(file, redact)).toBe(true))).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('# Memories\nkey [redacted]\n');
    expect(tracedWrites(dir, () => expect(rewriteFile(file, redact)).toBe(false))).toBe(0);
    expect(rewriteFile(join(dir, 'gone.md'), redact)).toBe(false);
    expect(existsSync(join(dir, 'gone.md'))).toBe(false);
  });

  it('waits for the lock ralph tools takes, and writes past one held beyond its wait (planted by the agent)', () => {
    const dir = makeWorkspace();
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, `{"title":"${KEY}"}\n`);
    // Held by this process: a nested lock runs inline, so the rewrite happens inside it.
    withFileLock(file, () => expect(rewriteFile(file, redact)).toBe(true));
    writeFileSync(file, `{"title":"${KEY}"}\n`);
    // A lock of a live process (this one) that is not ours: the rewrite waits its 5 s, then writes anyway.
    const token = 'planted';
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({ pid: process.pid, host: hostname(), started: Date.now(), token }),
    );
    expect(rewriteFile(file, redact)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('{"title":"[redacted]"}\n');
  }, 20_000);
});
