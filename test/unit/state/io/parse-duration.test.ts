import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DURATION_PHRASE,
  formatDuration,
  formatSpan,
  parseDuration,
} from '../../../../src/state/io/time-format.ts';

// The one duration-phrase parser: agents' "try again in …" (codex, copilot, cline, gemini) and
// `--since` / `?since=` read it.

const MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** Every spelling of each unit the parser reads, by the unit's short name. */
const SPELLINGS: Record<string, string[]> = {
  ms: ['ms', 'msec', 'msecs', 'millisecond', 'milliseconds'],
  s: ['s', 'sec', 'secs', 'second', 'seconds'],
  m: ['m', 'min', 'mins', 'minute', 'minutes'],
  h: ['h', 'hr', 'hrs', 'hour', 'hours'],
  d: ['d', 'day', 'days'],
  w: ['w', 'wk', 'wks', 'week', 'weeks'],
};

describe('parseDuration', () => {
  it('reads what each parser it replaced read', () => {
    // copilot and cline
    expect(parseDuration('2 hours')).toBe(2 * 3_600_000);
    expect(parseDuration('1 hour 30 minutes')).toBe(90 * 60_000);
    expect(parseDuration('2733 seconds')).toBe(2_733_000);
    // codex
    expect(parseDuration('4 days 3 hours')).toBe(4 * 86_400_000 + 3 * 3_600_000);
    expect(parseDuration('2 days, 3 hours and 5 mins')).toBe(2 * 86_400_000 + 3 * 3_600_000 + 300_000);
    expect(parseDuration('10 secs')).toBe(10_000);
    // gemini
    expect(parseDuration('37.5s')).toBe(37_500);
    expect(parseDuration('250ms')).toBe(250);
    // --since
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('7d')).toBe(7 * 86_400_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    // and, together
    expect(parseDuration(' 1h30m ')).toBe(90 * 60_000);
    expect(parseDuration('2m 32s')).toBe(152_000);
  });

  it('reads no bare number, no other unit, no date, no text around it', () => {
    for (const text of [
      '',
      '90',
      '5mo',
      '5 months',
      '2026-11-01',
      'in 5m',
      '5m later',
      '1e5s',
      '-5m',
      '5m,',
      'and 5m',
    ])
      expect(parseDuration(text), text).toBeUndefined();
  });

  it('sums parts of any units, spellings and separators (property)', () => {
    const part = fc.record({
      n: fc.oneof(
        fc.nat({ max: 100_000 }),
        fc.double({ min: 0, max: 1000, noNaN: true }).map((x) => Math.round(x * 100) / 100),
      ),
      unit: fc.constantFrom(...Object.keys(MS)),
      spelling: fc.nat(),
      space: fc.constantFrom('', ' '),
    });
    const separator = fc.constantFrom('', ' ', ', ', ' and ', ', and ', ',');
    fc.assert(
      fc.property(fc.array(fc.tuple(part, separator), { minLength: 1, maxLength: 6 }), (parts) => {
        const spelled = parts.map(([p, sep], i) => {
          const names = SPELLINGS[p.unit] as string[];
          const text = `${p.n}${p.space}${names[p.spelling % names.length]}`;
          // A unit word directly before the next number needs nothing between; `and` needs a space before.
          return i === 0 ? text : `${sep}${text}`;
        });
        const text = spelled.join('');
        const expected = parts.reduce((sum, [p]) => sum + p.n * (MS[p.unit] as number), 0);
        expect(parseDuration(text)).toBeCloseTo(expected, 6);
        expect(parseDuration(text.toUpperCase())).toBeCloseTo(expected, 6);
      }),
    );
  });

  it('reads back what formatDuration and formatSpan write, to their precision (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 400 * 86_400_000 }), (ms) => {
        const read = parseDuration(formatDuration(ms)) as number;
        expect(read).toBeLessThanOrEqual(Math.round(ms));
        expect(ms - read).toBeLessThan(ms < 1000 ? 1 : ms < 3_600_000 ? 1000 : 60_000);
        if (ms >= 1000) expect(parseDuration(formatSpan(ms))).toBeLessThanOrEqual(ms);
      }),
    );
  });

  it('never throws, and answers a finite, non-negative number or nothing (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.,smhdwaino ecMH'.split('')) }), (text) => {
        const ms = parseDuration(text);
        expect(ms === undefined || (Number.isFinite(ms) && ms >= 0)).toBe(true);
      }),
    );
    expect(parseDuration(`${'9'.repeat(400)}d`)).toBeUndefined();
  });

  it('found inside a message, it stops where the phrase does, and agent text cannot make it backtrack for long', () => {
    const inText = new RegExp(`try again in (${DURATION_PHRASE})`, 'i');
    expect(inText.exec('Please try again in 1 hour, 30 minutes and 5 seconds. Thanks')?.[1]).toBe(
      '1 hour, 30 minutes and 5 seconds',
    );
    const started = Date.now();
    for (const filler of [' ', ', ', ' and ', '1h']) inText.exec(`try again in 1h${filler.repeat(50_000)}x`);
    parseDuration(`1h${' '.repeat(100_000)}x`);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
