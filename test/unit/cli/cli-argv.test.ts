import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeArgv } from '../../../src/cli/cli-program.ts';

describe('normalizeArgv', () => {
  it.each([
    [[], ['run']],
    [['20'], ['run', '--max-iterations', '20']],
    [
      ['20', '-v'],
      ['run', '--max-iterations', '20', '-v'],
    ],
    // -v alone is the version (issue 36: it used to start a billed run); with anything else, verbose.
    [['-v'], ['--version']],
    [
      ['-v', '-P', 'TASK.md'],
      ['run', '-v', '-P', 'TASK.md'],
    ],
    [
      ['--max-cost', '1', '-q'],
      ['run', '--max-cost', '1', '-q'],
    ],
    [
      ['-p', 'hello'],
      ['run', '-p', 'hello'],
    ],
    [['status'], ['status']],
    [
      ['status', '--json'],
      ['status', '--json'],
    ],
    [
      ['run', '--dry-run'],
      ['run', '--dry-run'],
    ],
    [
      ['plan', 'auth'],
      ['plan', 'auth'],
    ],
    [['--help'], ['--help']],
    [['-h'], ['-h']],
    [['--version'], ['--version']],
    [['-V'], ['-V']],
  ])('%j → %j', (input, expected) => {
    expect(normalizeArgv(input)).toEqual(expected);
  });

  it('does not mutate its input', () => {
    const input = ['20', '-v'];
    normalizeArgv(input);
    expect(input).toEqual(['20', '-v']);
  });

  it('property: a leading number N is --max-iterations N with the rest kept in order', () => {
    fc.assert(
      fc.property(fc.nat(100_000), fc.array(fc.string(), { maxLength: 5 }), (n, rest) => {
        expect(normalizeArgv([String(n), ...rest])).toEqual(['run', '--max-iterations', String(n), ...rest]);
      }),
    );
  });

  it('property: a leading subcommand word is left unchanged', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z-]{0,10}$/),
        fc.array(fc.string(), { maxLength: 5 }),
        (cmd, rest) => {
          expect(normalizeArgv([cmd, ...rest])).toEqual([cmd, ...rest]);
        },
      ),
    );
  });
});
