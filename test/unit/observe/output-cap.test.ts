import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../src/observe/events.ts';
import { HeadTail } from '../../../src/observe/head-tail.ts';
import { createOutputCap } from '../../../src/observe/output-cap.ts';
import { createRedactor } from '../../../src/observe/redact.ts';
import { createStreamRedaction } from '../../../src/observe/stream-redaction.ts';
import { runDirsToPrune } from '../../../src/state/run-dirs.ts';

type Piece = { text: string };
const bytes = (s: string) => Buffer.byteLength(s);

/** Runs `pieces` through a HeadTail; returns the text passed on, in order, with `<cut N>` for the marker. */
function through(pieces: string[], head: number, tail: number, lines = false): { text: string; cut: number } {
  const ht = new HeadTail<Piece>({
    headBytes: head,
    tailBytes: tail,
    textOf: (p) => p.text,
    withText: (_p, text) => ({ text }),
    lines,
  });
  const out: string[] = [];
  let cut = 0;
  const show = (p: Piece) => out.push(lines ? `${p.text}\n` : p.text);
  for (const p of pieces) for (const kept of ht.push({ text: p })) show(kept);
  for (const p of ht.end((n) => {
    cut = n;
    return { text: '<cut>' };
  }))
    if (p.text === '<cut>') out.push('<cut>');
    else show(p);
  return { text: out.join(''), cut };
}

const line = fc.stringMatching(/^[a-zé€ 0-9]{0,40}$/);
const chunked = (text: string, cuts: number[]) => {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const p of [...at, text.length]) {
    pieces.push(text.slice(from, p));
    from = p;
  }
  return pieces.filter((p) => p !== '');
};

describe('HeadTail', () => {
  it('output within head + tail passes whole, in order, without a marker', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 6 }), (ls, cuts) => {
        const text = ls.map((l) => `${l}\n`).join('');
        const half = Math.ceil(bytes(text) / 2);
        expect(through(chunked(text, cuts), half, half + 1)).toEqual({ text, cut: 0 });
      }),
    );
  });

  it('longer output: a head and a tail of whole lines, at most the budget, the cut counted exactly', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        (ls, cuts, head, tail) => {
          const text = ls.map((l) => `${l}\n`).join('');
          const r = through(chunked(text, cuts), head, tail);
          const [kept, rest] = r.text.includes('<cut>') ? r.text.split('<cut>') : [r.text, ''];
          // The head may finish a line it began past its budget.
          const longest = Math.max(...ls.map((l) => bytes(l) + 1));
          expect(bytes(kept ?? '') + bytes(rest ?? '')).toBeLessThanOrEqual(head + tail + longest);
          // What is kept is the start and the end of the output (the end from a line start); the marker counts the rest.
          expect(text.startsWith(kept ?? '')).toBe(true);
          expect(text.endsWith(rest ?? '')).toBe(true);
          // The tail starts at a line start, unless that line alone is longer than the budget.
          const start = text.length - (rest ?? '').length;
          const lineStart = text.lastIndexOf('\n', start - 1) + 1;
          if (rest !== '' && lineStart !== start)
            expect(bytes(text.slice(lineStart, text.indexOf('\n', start) + 1))).toBeGreaterThan(tail);
          expect(bytes(kept ?? '') + r.cut + bytes(rest ?? '')).toBe(bytes(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('lines: kept or cut whole, held ones merged, the budget counting each newline', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 300 }),
        (ls, budget) => {
          const text = ls.map((l) => `${l}\n`).join('');
          const r = through(ls, budget, budget, true);
          if (!r.text.includes('<cut>')) {
            expect(r.text).toBe(text);
            return;
          }
          const [kept, rest] = r.text.split('<cut>');
          expect(text.startsWith(kept ?? '')).toBe(true);
          expect(text.endsWith(rest ?? '')).toBe(true);
          expect(bytes(kept ?? '')).toBeLessThanOrEqual(budget);
          // A line that did not fit in the head leaves its room to the tail.
          expect(bytes(kept ?? '') + bytes(rest ?? '')).toBeLessThanOrEqual(2 * budget);
          expect(bytes(kept ?? '') + r.cut + bytes(rest ?? '')).toBe(bytes(text));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('createOutputCap', () => {
  const output = (iteration: number, text: string): LoopEvent => ({
    type: 'agent.output',
    iteration,
    stream: 'stdout',
    text,
  });
  const finished = { type: 'iteration.finished', record: {}, totals: {} } as unknown as LoopEvent;

  it('passes the head at once, the tail after a marker when the iteration ends, and everything else as it comes', () => {
    const cap = createOutputCap(1 / 1024, 'logs.max_output_mb'); // 1 KB
    const seen: LoopEvent[] = [];
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i}\n`);
    for (const l of lines) seen.push(...cap(output(1, l)));
    seen.push(...cap({ type: 'notice', level: 'info', message: 'mid-run' }));
    expect(seen.at(-1)).toEqual({ type: 'notice', level: 'info', message: 'mid-run' });
    const live = seen.flatMap((e) => (e.type === 'agent.output' ? [e.text] : [])).join('');
    expect(live).toBe(lines.join('').slice(0, live.length));
    expect(bytes(live)).toBeLessThanOrEqual(512);
    const after = cap(finished);
    expect(after.at(-1)).toBe(finished);
    const text = after.flatMap((e) => (e.type === 'agent.output' ? [e.text] : [])).join('');
    expect(text).toMatch(
      /^… [\d.]+ (bytes|KB) of agent output cut here \(logs\.max_output_mb: 0\.0009765625\) …\n/,
    );
    expect(lines.join('').endsWith(text.replace(/^….*\n/, ''))).toBe(true);
    expect(text).toContain('line 299\n');
  });

  it('a credential where the head ends is redacted whole: the head finishes the line it began', () => {
    const secret = 'vendor-Zq8vR2pL9xW4tY7u';
    const redaction = createStreamRedaction(createRedactor({ VENDOR_API_KEY: secret }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: secret.length - 1 }),
        // The first piece fits in the head, and the rest of its line does not.
        fc.integer({ min: 460, max: 485 }),
        (split, pad) => {
          const cap = createOutputCap(1 / 1024, 'logs.max_output_mb'); // head 512 bytes
          const first = `${'a'.repeat(pad)} key=${secret.slice(0, split)}`;
          const pieces = [first, `${secret.slice(split)} rest\n${'b\n'.repeat(2000)}`];
          const seen = [...pieces.map((t) => output(1, t)), finished]
            .flatMap((e) => cap(e))
            .flatMap((e) => redaction(e))
            .flatMap((e) => (e.type === 'agent.output' ? [e.text] : []))
            .join('');
          expect(seen).not.toContain(`key=${secret.slice(0, 1)}`);
          expect(seen).toContain('key=[redacted] rest\n');
        },
      ),
    );
  });

  it('0 keeps all the output; tokens and other agent events are never held', () => {
    const cap = createOutputCap(0, 'logs.max_output_mb');
    const big = 'x'.repeat(4096);
    expect(cap(output(1, big))).toEqual([output(1, big)]);
    const usage: LoopEvent = {
      type: 'agent.event',
      iteration: 1,
      event: {
        type: 'usage',
        usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    };
    expect(cap(usage)).toEqual([usage]);
  });
});

describe('runDirsToPrune', () => {
  it('keeps the newest `keep` runs counting the current one, never deletes the current one; 0 keeps all', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ name: fc.stringMatching(/^[a-z0-9-]{1,12}$/), lastWrittenMs: fc.nat() }), {
          selector: (d) => d.name,
          maxLength: 20,
        }),
        fc.nat(25),
        fc.nat(25),
        (dirs, keep, currentAt) => {
          const current = dirs[currentAt % Math.max(1, dirs.length)]?.name ?? 'none';
          const gone = runDirsToPrune(dirs, keep, current);
          expect(gone).not.toContain(current);
          if (keep === 0) {
            expect(gone).toEqual([]);
            return;
          }
          const left = dirs.filter((d) => !gone.includes(d.name));
          expect(left.length).toBe(
            Math.min(dirs.length, Math.max(keep, dirs.some((d) => d.name === current) ? 1 : 0)),
          );
          const newestGone = Math.max(
            -1,
            ...dirs.filter((d) => gone.includes(d.name)).map((d) => d.lastWrittenMs),
          );
          for (const d of left)
            if (d.name !== current) expect(d.lastWrittenMs).toBeGreaterThanOrEqual(newestGone);
        },
      ),
    );
  });
});
