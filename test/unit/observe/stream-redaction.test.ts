import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../src/observe/events.ts';
import { createRedactor } from '../../../src/observe/redact.ts';
import { createStreamRedaction } from '../../../src/observe/stream-redaction.ts';

const SECRET = 'vendor-Zq8vR2pL9xW4tY7u';
const redact = createRedactor({ VENDOR_API_KEY: SECRET });

/** Feeds `text` as agent output cut at `cuts`, then ends the iteration; returns what sinks saw. */
function feed(text: string, cuts: number[]): string {
  const redaction = createStreamRedaction(redact);
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let at = 0;
  for (const p of [...points, text.length]) {
    chunks.push(text.slice(at, p));
    at = p;
  }
  const out: LoopEvent[] = [];
  for (const chunk of chunks)
    if (chunk) out.push(...redaction({ type: 'agent.output', iteration: 1, stream: 'stdout', text: chunk }));
  out.push(
    ...redaction({ type: 'iteration.finished', record: {} as never, totals: { costUsd: 0, tokens: 0 } }),
  );
  return out.flatMap((e) => (e.type === 'agent.output' ? [e.text] : [])).join('');
}

const clean = fc.string({ maxLength: 300 }).filter((s) => !s.includes('Zq8v'));

describe('stream redaction', () => {
  it('a secret split across any chunk boundaries never reaches a sink', () => {
    fc.assert(
      fc.property(clean, clean, fc.array(fc.nat(), { maxLength: 8 }), (before, after, cuts) => {
        const out = feed(`${before}${SECRET}${after}`, cuts);
        expect(out).not.toContain(SECRET);
        expect(out).toBe(`${before}[redacted]${after}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('text without secrets passes through unchanged, whatever the chunking', () => {
    fc.assert(
      fc.property(clean, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        expect(feed(text, cuts)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('stays bounded on a line with no newline, without splitting a key', () => {
    const long = `${'word '.repeat(40_000)}${SECRET} ${'y'.repeat(70_000)}`;
    const out = feed(long, [65_536, 131_072, 200_000]);
    expect(out).not.toContain(SECRET);
    expect(out.length).toBe(long.length - SECRET.length + '[redacted]'.length);
  });
});
