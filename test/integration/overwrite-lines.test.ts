import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor, redactLine } from '../../src/observe/redact.ts';
import { overwriteLinesInPlace } from '../../src/state/io/overwrite-lines.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

const KEY = 'acme-Zq8vR2pL9xW4tY7u-ow';
const redact = createRedactor({ ACME_API_KEY: KEY });
const clean = (line: string) => redactLine(line, redact);

/** The durable writes traced while `fn` runs (RALPH_FAULT_TRACE_WRITES), by path. */
function tracedWrites(dir: string, fn: () => void): string[] {
  const trace = join(dir, 'trace.jsonl');
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
});

describe('overwriteLinesInPlace (a file cleaned of secrets where it is)', () => {
  it('rewrites only the lines that change, same size and offsets, in one durable write; none when nothing changes', () => {
    const dir = makeWorkspace();
    const file = join(dir, 'events.jsonl');
    const text = [
      '{"topic":"a","payload":"fine"}',
      `{"topic":"b","payload":"${KEY}"}\r`,
      `${KEY} is not JSON`,
      '{"topic":"c","payload":"fine"}',
      `{"topic":"torn","payload":"${KEY}`,
    ].join('\n');
    writeFileSync(file, text);
    const complete = Buffer.byteLength(text) - Buffer.byteLength(`{"topic":"torn","payload":"${KEY}`);
    let changed = 0;
    const writes = tracedWrites(dir, () => {
      changed = overwriteLinesInPlace(file, 0, complete, clean);
    });
    expect(changed).toBe(2);
    expect(writes).toEqual([file]);
    const after = readFileSync(file, 'utf8');
    expect(after.length).toBe(text.length);
    const lines = after.split('\n');
    expect(lines.map((l) => l.length)).toEqual(text.split('\n').map((l) => l.length));
    expect(lines[0]).toBe('{"topic":"a","payload":"fine"}');
    // The CRLF ending stays; the JSON line is still the same JSON, redacted.
    expect(lines[1]?.endsWith('\r')).toBe(true);
    expect(JSON.parse(lines[1] as string)).toEqual({ topic: 'b', payload: '[redacted]' });
    expect(lines[2]?.trimEnd()).toBe('[redacted] is not JSON');
    expect(lines[3]).toBe('{"topic":"c","payload":"fine"}');
    // A last line without its newline is still being written: not touched (the next read gets it).
    expect(lines[4]).toBe(`{"topic":"torn","payload":"${KEY}`);

    // Nothing left to redact: nothing is written.
    expect(tracedWrites(dir, () => overwriteLinesInPlace(file, 0, complete, clean))).toEqual([]);
  });

  it('an edit longer than its line blanks it; a file shorter than the range, or gone, is left alone', () => {
    const dir = makeWorkspace();
    const file = join(dir, 'q.jsonl');
    writeFileSync(file, 'abc\ndef\n');
    expect(overwriteLinesInPlace(file, 0, 8, (l) => (l === 'abc' ? 'abcdef' : undefined))).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('   \ndef\n');
    expect(overwriteLinesInPlace(file, 0, 100, () => 'x')).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('   \ndef\n');
    expect(overwriteLinesInPlace(join(dir, 'missing.jsonl'), 0, 8, () => 'x')).toBe(0);
  });

  it('a writer appending meanwhile (O_APPEND, no lock, like `ralph emit` or an agent) loses no line, in order', async () => {
    const dir = makeWorkspace();
    const file = join(dir, 'events.jsonl');
    writeFileSync(file, '');
    const total = 1000;
    // Another process appends line after line, every other one with the key, a millisecond apart.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const pause = new Int32Array(new SharedArrayBuffer(4));
         for (let n = 0; n < ${total}; n++, Atomics.wait(pause, 0, 0, 1))
           fs.appendFileSync(${JSON.stringify(file)}, JSON.stringify({ topic: 't', payload: { n, key: n % 2 ? ${JSON.stringify(KEY)} : 'none' } }) + '\\n');`,
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => writer.on('exit', resolve));
    let rewrites = 0;
    const deadline = Date.now() + 20_000;
    // Clean the complete lines appended since the last pass, as the loop does, while the writer appends.
    for (let from = 0, done = false; !done && Date.now() < deadline; ) {
      const text = readFileSync(file);
      const end = text.lastIndexOf(0x0a) + 1;
      done = text
        .subarray(from, end)
        .toString()
        .includes(`"n":${total - 1},`);
      if (overwriteLinesInPlace(file, from, end, clean) > 0) rewrites++;
      from = end;
    }
    expect(await exited).toBe(0);
    expect(overwriteLinesInPlace(file, 0, statSync(file).size, clean)).toBe(0);
    // Not vacuous: the cleaning ran many times while lines were being appended.
    expect(rewrites).toBeGreaterThan(20);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as { payload: { n: number } }).payload.n)).toEqual(
      Array.from({ length: total }, (_, n) => n),
    );
    expect(lines.filter((l) => l.includes(KEY))).toEqual([]);
    expect(lines.filter((l) => l.includes('[redacted]'))).toHaveLength(total / 2);
  }, 30_000);
});
