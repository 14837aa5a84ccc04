import { describe, expect, it } from 'vitest';
import { chooseProcessTable, EPOCH_PREFIX } from '../../../src/process/process-table.ts';
import { environmentValue, parseEntryLine } from '../../../src/process/ps-table.ts';

describe('chooseProcessTable', () => {
  it('reads /proc where it exists and ps elsewhere, unless RALPH_PROCESS_TABLE names one', () => {
    expect(chooseProcessTable(undefined, true)).toBe('proc');
    expect(chooseProcessTable(undefined, false)).toBe('ps');
    expect(chooseProcessTable('', false)).toBe('ps');
    expect(chooseProcessTable('ps', true)).toBe('ps');
    expect(chooseProcessTable('proc', true)).toBe('proc');
  });

  it('refuses an unknown table, and /proc where there is none, saying what to set', () => {
    expect(() => chooseProcessTable('procfs', true)).toThrow(/RALPH_PROCESS_TABLE=procfs .*use ps or proc/);
    expect(() => chooseProcessTable('proc', false)).toThrow(/no \/proc\/self\/stat.*RALPH_PROCESS_TABLE=ps/);
  });
});

describe('parseEntryLine (ps -o pid=,ppid=,pgid=,stat=,lstart= with LC_ALL=C TZ=UTC)', () => {
  it('reads procps and BSD lines, a one-digit day padded, as epoch seconds in UTC', () => {
    expect(parseEntryLine('  812     1   812 Ss   Thu Nov 26 00:56:06 2026')).toEqual({
      pid: 812,
      ppid: 1,
      pgid: 812,
      state: 'Ss',
      startTime: `${EPOCH_PREFIX}${Date.UTC(2026, 10, 26, 0, 56, 6) / 1000}`,
    });
    expect(parseEntryLine('70123 70100 70100 Z+   Mon Mar  2 09:05:59 2026')).toMatchObject({
      pid: 70123,
      state: 'Z+',
      startTime: `${EPOCH_PREFIX}${Date.UTC(2026, 2, 2, 9, 5, 59) / 1000}`,
    });
  });

  it('reads nothing from a line it does not know (a header, a localised date)', () => {
    expect(parseEntryLine('  PID  PPID  PGID STAT STARTED')).toBeUndefined();
    expect(parseEntryLine('  812     1   812 Ss   jeu. 26 nov. 00:56:06 2026')).toBeUndefined();
    expect(parseEntryLine('')).toBeUndefined();
  });
});

describe('environmentValue (ps e / ps -E print the environment after the command)', () => {
  const command = 'node agent.js --flag';
  it('finds the variable in the environment part, anywhere in it', () => {
    expect(
      environmentValue(`${command} A=1 RALPH_ITERATION_MARK=run-1:3 B=2`, command, 'RALPH_ITERATION_MARK'),
    ).toBe('run-1:3');
    expect(environmentValue(`${command} RALPH_ITERATION_MARK=run-1:3`, command, 'RALPH_ITERATION_MARK')).toBe(
      'run-1:3',
    );
  });

  it('never takes an argument that spells the variable, nor a longer name, for it', () => {
    const spelled = 'grep RALPH_ITERATION_MARK=run-1:3';
    expect(environmentValue(`${spelled} HOME=/root`, spelled, 'RALPH_ITERATION_MARK')).toBeUndefined();
    expect(
      environmentValue(`${command} X_RALPH_ITERATION_MARK=run-1:3`, command, 'RALPH_ITERATION_MARK'),
    ).toBeUndefined();
  });

  it('says nothing when the command changed between the two ps calls (an exec)', () => {
    expect(
      environmentValue('sh -c x RALPH_ITERATION_MARK=run-1:3', command, 'RALPH_ITERATION_MARK'),
    ).toBeUndefined();
  });
});
