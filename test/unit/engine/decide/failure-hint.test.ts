import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentFailureDetail } from '../../../../src/engine/decide/failure-hint.ts';

describe('agentFailureDetail', () => {
  it.each([
    ['sh: 1: claude: not found\ncommand not found', 127, /not installed or not on PATH/],
    ['', 127, /not installed or not on PATH/],
    ['', 126, /not executable/],
    ['Error: 401 Unauthorized', 1, /not logged in/],
    ['Not logged in · Please run /login', 1, /not logged in/],
    ['ERROR: unexpected argument --foo found', 2, /cli\.args/],
    ['Unknown model: gpt-9', 1, /cli\.model/],
  ])('%j (exit %d) → a hint', (stderr, code, hint) => {
    expect(agentFailureDetail(stderr, code)?.hint).toMatch(hint);
  });

  it('keeps only the last five non-empty lines, and guesses nothing for an unknown failure', () => {
    const detail = agentFailureDetail('a\n\nb\nc\nd\ne\nf\ng\n', 1);
    expect(detail).toEqual({ stderrTail: 'c\nd\ne\nf\ng', hint: undefined });
    expect(agentFailureDetail('', 1)).toBeUndefined();
  });

  it('never throws and stays within five lines of its input', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 2000 }),
        fc.option(fc.integer({ min: 0, max: 255 })),
        (stderr, code) => {
          const d = agentFailureDetail(stderr, code);
          if (d) expect(d.stderrTail.split('\n').length).toBeLessThanOrEqual(5);
        },
      ),
    );
  });
});
