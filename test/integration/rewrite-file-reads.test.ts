import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRedactor } from '../../src/observe/redact.ts';
import { rewriteFile } from '../../src/state/io/rewrite-file.ts';
import { pinTimes, sameSizeSameMtime } from '../helpers/file-times.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

// Issue 33, item 8: the loop cleans the agent's files (tasks, memories, scratchpads) twice an
// iteration; each look read every file, and a missing one threw ENOENT. Counted, not timed.
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, readFileSync: vi.fn(actual.readFileSync) };
});

const KEY = 'acme-Zq8vR2pL9xW4tY7u-rw';
const redact = createRedactor({ ACME_API_KEY: KEY });

/** How many times readFileSync was given `file` since the last call. */
function readsOf(file: string): number {
  const mock = vi.mocked(fs.readFileSync);
  const n = mock.mock.calls.filter(([p]) => p === file).length;
  mock.mockClear();
  return n;
}

/** Puts the clock past the racy window, so what was just written counts as settled. */
function settle(): void {
  vi.useRealTimers();
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('rewriteFile looks at an unchanged file without reading it again', () => {
  it('states a missing file after its first look, and reads a settled clean file once', () => {
    const dir = makeWorkspace();
    const missing = join(dir, 'scratchpad.md');
    const clean = join(dir, 'memories.md');
    fs.writeFileSync(clean, '# Memories\nnothing secret\n');
    pinTimes(clean);
    settle();
    readsOf(missing);
    for (let i = 0; i < 3; i++) {
      expect(rewriteFile(missing, redact)).toBe(false);
      expect(rewriteFile(clean, redact)).toBe(false);
    }
    expect(readsOf(missing)).toBeLessThanOrEqual(1);
    expect(readsOf(clean)).toBeLessThanOrEqual(1);
    for (let i = 0; i < 3; i++) rewriteFile(missing, redact);
    expect(readsOf(missing)).toBe(0);
  });

  it('still finds a secret written into a file it looked at: a same-size edit with its mtime put back', () => {
    const file = join(makeWorkspace(), 'tasks.jsonl');
    const clean = `{"title":"${'x'.repeat(KEY.length)}"}\n`;
    fs.writeFileSync(file, clean);
    pinTimes(file);
    settle();
    expect(rewriteFile(file, redact)).toBe(false);
    sameSizeSameMtime(file, `{"title":"${KEY}"}\n`);
    settle(); // past the racy window too: the change time alone tells the edit
    expect(rewriteFile(file, redact)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"title":"[redacted]"}\n');
    // and appearing after it was looked at while missing
    const later = join(makeWorkspace(), 'memories.md');
    expect(rewriteFile(later, redact)).toBe(false);
    fs.writeFileSync(later, `key ${KEY}\n`);
    settle();
    expect(rewriteFile(later, redact)).toBe(true);
    expect(fs.readFileSync(later, 'utf8')).toBe('key [redacted]\n');
  });
});
