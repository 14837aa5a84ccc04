import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  anyJson,
  followFile,
  followJsonl,
  MAX_JSON_DEPTH,
  nestedDeeper,
  parseJsonl,
  readJsonl,
  readJsonlSince,
  readTextSince,
} from '../../../../src/state/io/jsonl.ts';

const dir = mkdtempSync(join(tmpdir(), 'ralph-jsonl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => join(dir, `f${files++}.jsonl`);

const record = fc.record({ n: fc.integer(), s: fc.string({ unit: 'grapheme' }) });

describe('readJsonlSince', () => {
  it('any cut of the writes gives the same records as reading the whole file, each once', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (records, cuts) => {
          const bytes = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const file = fresh();
          writeFileSync(file, '');
          const seen: unknown[] = [];
          let offset = 0;
          let written = 0;
          for (const at of [...points, bytes.length]) {
            appendFileSync(file, bytes.subarray(written, at));
            written = at;
            const chunk = readJsonlSince(file, offset, anyJson);
            // A partial last line is never consumed: the offset stays at a line start.
            expect(chunk.nextOffset === 0 || bytes[chunk.nextOffset - 1] === 0x0a).toBe(true);
            expect(chunk.items.every((i) => i.ok)).toBe(true);
            seen.push(...chunk.records);
            offset = chunk.nextOffset;
          }
          expect(seen).toEqual(records);
          expect(readJsonl(file, anyJson).records).toEqual(records);
          expect(offset).toBe(bytes.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reports a line that is not JSON with its number, and reads a shrunk file from its start', () => {
    const file = fresh();
    writeFileSync(file, '{"a":1}\n\nnope\r\n{"a":2}\n{"a":');
    const chunk = readJsonlSince(file, 0, anyJson);
    expect(chunk.records).toEqual([{ a: 1 }, { a: 2 }]);
    expect(chunk.items.filter((i) => !i.ok).map((i) => [i.n, i.line])).toEqual([[3, 'nope']]);
    writeFileSync(file, '{"b":1}\n');
    expect(readJsonlSince(file, chunk.nextOffset, anyJson).records).toEqual([{ b: 1 }]);
    expect(readJsonlSince(join(dir, 'missing'), 40, anyJson)).toEqual({
      items: [],
      records: [],
      nextOffset: 0,
    });
    expect(parseJsonl('1\n2\n', anyJson).records).toEqual([1, 2]);
  });

  it('maxBytes: reads in bounded steps that together give every record once; a line longer than the bound is skipped, never a stall', () => {
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 40, max: 200 }),
        (records, max) => {
          const file = fresh();
          const lines = records.map((r) => JSON.stringify(r));
          writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
          const seen: unknown[] = [];
          let offset = 0;
          for (let step = 0; step < 1000 && offset < Buffer.byteLength(lines.join('\n')) + 1; step++) {
            const chunk = readJsonlSince(file, offset, anyJson, { maxBytes: max });
            expect(chunk.nextOffset - offset).toBeLessThanOrEqual(max);
            expect(chunk.nextOffset).toBeGreaterThan(offset);
            seen.push(...chunk.records);
            offset = chunk.nextOffset;
          }
          // Lines that fit the bound are all read, in order; longer ones are dropped.
          expect(seen).toEqual(records.filter((_, i) => Buffer.byteLength(lines[i] as string) < max));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('anyJson: nesting depth', () => {
  const nest = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

  it('a line nested deeper than MAX_JSON_DEPTH is a damaged line, however deep (no recursion, no stack overflow)', () => {
    expect(anyJson(nest(MAX_JSON_DEPTH))).toEqual({ value: expect.any(Array) });
    expect(anyJson(nest(MAX_JSON_DEPTH + 1))).toEqual({
      error: `nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
    const deep = `{"topic":"a.b","payload":${nest(200_000)}}`;
    expect(anyJson(deep)).toEqual({ error: `nested deeper than ${MAX_JSON_DEPTH} levels` });
    expect(parseJsonl(`{"a":1}\n${deep}\n{"b":2}\n`, anyJson).records).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('brackets inside strings (escaped quotes too) do not count', () => {
    const text = JSON.stringify({ s: `"${'['.repeat(500)}\\"{{{`, t: [[1]] });
    expect(nestedDeeper(text, 3)).toBe(false);
    expect(nestedDeeper(text, 2)).toBe(true);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        const depth = (v: unknown): number =>
          typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;
        expect(nestedDeeper(text, depth(value))).toBe(false);
        if (depth(value) > 0) expect(nestedDeeper(text, depth(value) - 1)).toBe(true);
      }),
    );
  });
});

describe('followJsonl / followFile', () => {
  it('yields what was there, then what is appended, and ends when the signal aborts', async () => {
    const file = fresh();
    writeFileSync(file, '{"i":0}\n');
    const stop = new AbortController();
    const got: unknown[] = [];
    for await (const chunk of followJsonl(file, anyJson, { signal: stop.signal, intervalMs: 10 })) {
      got.push(...chunk.records);
      if (got.length === 1) appendFileSync(file, '{"i":1}\n{"i":');
      if (got.length === 2) appendFileSync(file, '2}\n');
      if (got.length === 3) stop.abort();
    }
    expect(got).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
  });

  it('a follow asked to end when its writer is done reads once more first', async () => {
    const file = fresh();
    writeFileSync(file, 'head\n');
    const texts: string[] = [];
    const start = readTextSince(file, 0);
    const follow = followFile(file, {
      from: start.nextOffset,
      intervalMs: 10,
      // The writer's last words land between the follow's last read and its "done".
      done: () => {
        appendFileSync(file, 'tail\n');
        return true;
      },
    });
    for await (const text of follow) texts.push(text);
    expect(start.text + texts.join('')).toBe('head\ntail\n');
  });
});
