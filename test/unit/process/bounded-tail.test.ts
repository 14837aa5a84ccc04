import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedTail, LineSplitter } from '../../../src/process/bounded-tail.ts';

describe('BoundedTail', () => {
  it('keeps everything under the limit', () => {
    const t = new BoundedTail(10);
    t.push('abc');
    t.push('');
    t.push('def');
    expect(t.text()).toBe('abcdef');
    expect(t.truncated).toBe(false);
  });

  it('keeps only the last `limit` characters', () => {
    const t = new BoundedTail(5);
    t.push('hello ');
    t.push('world');
    expect(t.text()).toBe('world');
    expect(t.truncated).toBe(true);
  });

  it('an empty tail has empty text', () => {
    expect(new BoundedTail(4).text()).toBe('');
  });

  it('text() is stable across calls and further pushes', () => {
    const t = new BoundedTail(4);
    t.push('abcdef');
    expect(t.text()).toBe('cdef');
    expect(t.text()).toBe('cdef');
    t.push('gh');
    expect(t.text()).toBe('efgh');
  });

  it('a limit of 0 keeps nothing', () => {
    const t = new BoundedTail(0);
    t.push('abc');
    expect(t.text()).toBe('');
    expect(t.truncated).toBe(true);
  });

  it('property: text() equals the last `limit` chars of the concatenation', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.string({ maxLength: 30 }), { maxLength: 30 }),
        fc.array(fc.nat(30), { maxLength: 5 }),
        (limit, chunks, readAt) => {
          const t = new BoundedTail(limit);
          let all = '';
          chunks.forEach((chunk, i) => {
            t.push(chunk);
            all += chunk;
            // Reading midway must not disturb what is retained.
            if (readAt.includes(i)) expect(t.text()).toBe(all.slice(-limit));
          });
          expect(t.text()).toBe(all.slice(Math.max(0, all.length - limit)));
          expect(t.text().length).toBeLessThanOrEqual(limit);
          expect(t.truncated).toBe(all.length > limit);
        },
      ),
    );
  });
});

/** Splits `text` at the given cut points into chunks. */
function chunked(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(text.slice(prev, p));
    prev = p;
  }
  out.push(text.slice(prev));
  return out;
}

function collect(maxLine?: number): { splitter: LineSplitter; lines: string[] } {
  const lines: string[] = [];
  const splitter = new LineSplitter((l) => lines.push(l), maxLine);
  return { splitter, lines };
}

describe('LineSplitter', () => {
  it('emits complete lines as they arrive and the rest on end()', () => {
    const { splitter, lines } = collect();
    splitter.push('one\ntw');
    expect(lines).toEqual(['one']);
    splitter.push('o\nthr');
    expect(lines).toEqual(['one', 'two']);
    splitter.end();
    expect(lines).toEqual(['one', 'two', 'thr']);
  });

  it('strips a CR at the end of a line, also when split across chunks', () => {
    const { splitter, lines } = collect();
    splitter.push('a\r');
    splitter.push('\nb\r\n');
    splitter.end();
    expect(lines).toEqual(['a', 'b']);
  });

  it('keeps empty lines and emits nothing extra after a trailing newline', () => {
    const { splitter, lines } = collect();
    splitter.push('\n\nx\n');
    splitter.end();
    expect(lines).toEqual(['', '', 'x']);
  });

  it('end() twice emits the final line once', () => {
    const { splitter, lines } = collect();
    splitter.push('tail');
    splitter.end();
    splitter.end();
    expect(lines).toEqual(['tail']);
  });

  it('property: emitted lines equal the text split on \\n, for any chunking', () => {
    const textArb = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '\r', 'é', '{'), maxLength: 80 });
    fc.assert(
      fc.property(textArb, fc.array(fc.nat(200), { maxLength: 12 }), (text, cuts) => {
        const { splitter, lines } = collect();
        for (const chunk of chunked(text, cuts)) splitter.push(chunk);
        splitter.end();
        const expected = text.split('\n');
        if (expected.at(-1) === '') expected.pop();
        expect(lines).toEqual(expected.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)));
      }),
    );
  });

  describe('maxLine', () => {
    it('cuts an overlong line that arrives across chunks and resumes with the next line', () => {
      const { splitter, lines } = collect(5);
      splitter.push('abcdefgh');
      splitter.push('ijk\nok\n');
      splitter.end();
      expect(lines).toEqual(['abcde', 'ok']);
    });

    it('cuts an overlong line that arrives in one chunk', () => {
      const { splitter, lines } = collect(5);
      splitter.push('abcdefgh\nok\n');
      expect(lines).toEqual(['abcde', 'ok']);
    });

    it('property: every emitted line is the maxLine-prefix of the true line', () => {
      const textArb = fc.string({ unit: fc.constantFrom('a', 'b', '\n'), maxLength: 80 });
      fc.assert(
        fc.property(
          textArb,
          fc.array(fc.nat(200), { maxLength: 12 }),
          fc.integer({ min: 1, max: 10 }),
          (text, cuts, max) => {
            const { splitter, lines } = collect(max);
            for (const chunk of chunked(text, cuts)) splitter.push(chunk);
            splitter.end();
            const expected = text.split('\n');
            if (expected.at(-1) === '') expected.pop();
            expect(lines).toEqual(expected.map((l) => l.slice(0, max)));
          },
        ),
      );
    });
  });
});
