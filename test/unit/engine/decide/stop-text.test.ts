import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXIT_FOR_REASON } from '../../../../src/engine/decide/limits.ts';
import { stopText } from '../../../../src/observe/format.ts';

const REASONS = Object.keys(EXIT_FOR_REASON);
/** How a message may name its reason: as written (`max_iterations`) or in words (`stale loop`). */
const spellings = (reason: string) => [reason, reason.replace(/_/g, ' ')];

describe('stopText: a stop reason and its message, said once', () => {
  it('examples', () => {
    expect(stopText('interrupted', 'interrupted (Ctrl-C, SIGTERM or SIGHUP)')).toBe(
      'interrupted (Ctrl-C, SIGTERM or SIGHUP)',
    );
    expect(stopText('stale_loop', 'stale loop: builder published the same events')).toBe(
      'stale loop: builder published the same events',
    );
    expect(stopText('max_iterations', 'reached max_iterations (10)')).toBe('reached max_iterations (10)');
    expect(stopText('cancelled', 'stopped by `ralph stop`')).toBe('cancelled — stopped by `ralph stop`');
    expect(stopText('cancelled', 'stopped by `ralph stop`', ': ')).toBe('cancelled: stopped by `ralph stop`');
    expect(stopText('error', null)).toBe('error');
  });

  it('names the reason, keeps the whole message, and never names the reason twice when the message does', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...REASONS),
        fc.string(),
        fc.boolean(),
        fc.string(),
        (reason, before, spaced, after) => {
          // A message that names its reason somewhere, and any message at all.
          const named = `${before}${spaced ? reason.replace(/_/g, ' ') : reason}${after}`;
          expect(stopText(reason, named)).toBe(named);
          const any = `${before}${after}`;
          const text = stopText(reason, any);
          expect(text.endsWith(any)).toBe(true);
          const lower = text.toLowerCase();
          expect(spellings(reason).some((s) => lower.includes(s))).toBe(true);
          if (!spellings(reason).some((s) => any.toLowerCase().includes(s)))
            expect(text).toBe(any === '' ? reason : `${reason} — ${any}`);
        },
      ),
    );
  });
});
