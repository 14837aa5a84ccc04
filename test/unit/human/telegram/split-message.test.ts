import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage, TELEGRAM_MAX_TEXT } from '../../../../src/human/telegram/split-message.ts';

const pieces = fc.array(
  fc.oneof(fc.string(), fc.constantFrom('\n', ' ', '😀', 'é', '漢字'), fc.string({ unit: 'grapheme' })),
  {
    maxLength: 60,
  },
);

describe('splitMessage', () => {
  it('parts fit, keep their order and lose nothing; no emoji is cut in half', () => {
    fc.assert(
      fc.property(pieces, fc.integer({ min: 2, max: 40 }), (chunks, max) => {
        const text = chunks.join('');
        const parts = splitMessage(text, max);
        expect(parts.join('')).toBe(text);
        for (const p of parts) {
          expect(p.length).toBeLessThanOrEqual(max);
          expect(/^[\uDC00-\uDFFF]/.test(p)).toBe(false);
          expect(/[\uD800-\uDBFF]$/.test(p) && p !== parts.at(-1)).toBe(false);
        }
      }),
    );
  });

  it('a cut falls after a line break that fits, else after a space', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ') }), { minLength: 1, maxLength: 20 }),
        (lines) => {
          const text = lines.join('\n');
          const parts = splitMessage(text, 10);
          let at = 0;
          for (const p of parts.slice(0, -1)) {
            const window = text.slice(at, at + 10);
            if (window.includes('\n')) expect(p.endsWith('\n')).toBe(true);
            else if (window.includes(' ')) expect(p.endsWith(' ')).toBe(true);
            at += p.length;
          }
        },
      ),
    );
  });

  it('a 5,000-character question becomes two messages under Telegram limit, counted in UTF-16 units', () => {
    const line = `${'😀'.repeat(20)} ${'x'.repeat(58)}\n`; // 100 UTF-16 units, 80 code points
    const parts = splitMessage(line.repeat(50));
    expect(parts.map((p) => p.length)).toEqual([4000, 1000]);
    expect(parts.every((p) => p.length <= TELEGRAM_MAX_TEXT)).toBe(true);
    expect(splitMessage('short')).toEqual(['short']);
  });
});
