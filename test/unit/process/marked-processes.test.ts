import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MARK_VAR,
  markFor,
  markSelected,
  sweepMarkedProcesses,
} from '../../../src/process/marked-processes.ts';
import { environValue, pidsHandedOutAfter } from '../../../src/process/proc-table.ts';

const runId = fc.stringMatching(/^[0-9a-z-]{1,24}$/);
const iteration = fc.integer({ min: 1, max: 100_000 });
const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/);
const value = fc.string({ maxLength: 40 }).filter((v) => !v.includes('\0'));
const environOf = (entries: [string, string][]) => entries.map(([k, v]) => `${k}=${v}`).join('\0');

describe('environValue', () => {
  it('finds the variable wherever it sits among others, whatever its value', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, value)),
        fc.array(fc.tuple(name, value)),
        value,
        (before, after, v) => {
          const others = (e: [string, string][]) => e.filter(([k]) => k !== MARK_VAR);
          const environ = environOf([...others(before), [MARK_VAR, v], ...others(after)]);
          expect(environValue(environ, MARK_VAR)).toBe(v);
        },
      ),
    );
  });

  it('never mistakes a variable whose name only contains the mark variable', () => {
    fc.assert(
      fc.property(name, name, value, (pre, post, v) => {
        fc.pre(pre !== '' || post !== '');
        const environ = environOf([[`${pre}${MARK_VAR}${post}`, v]]);
        if (`${pre}${MARK_VAR}${post}` !== MARK_VAR) expect(environValue(environ, MARK_VAR)).toBeUndefined();
      }),
    );
  });
});

describe('markSelected', () => {
  it("selects every iteration of the run, and only the run's", () => {
    fc.assert(
      fc.property(runId, runId, iteration, (a, b, n) => {
        expect(markSelected(markFor(a, n), { runId: a })).toBe(true);
        expect(markSelected(markFor(a, n), { runId: a, iteration: n })).toBe(true);
        // Run ids that extend one another ("abc" and "abc-1") stay apart.
        if (a !== b) expect(markSelected(markFor(a, n), { runId: b })).toBe(false);
      }),
    );
  });

  it('selects one iteration exactly', () => {
    fc.assert(
      fc.property(runId, iteration, iteration, (a, n, m) => {
        expect(markSelected(markFor(a, n), { runId: a, iteration: m })).toBe(n === m);
      }),
    );
  });

  it('never selects a malformed mark or an empty run id', () => {
    fc.assert(
      fc.property(runId, value, (a, junk) => {
        fc.pre(!/^\d+$/.test(junk));
        expect(markSelected(`${a}:${junk}`, { runId: a })).toBe(false);
        expect(markSelected(`${a}:${junk}`, { runId: '' })).toBe(false);
      }),
    );
  });
});

describe('sweepMarkedProcesses', () => {
  it('finds nothing and waits for nothing when no process carries the mark', async () => {
    const started = Date.now();
    expect(await sweepMarkedProcesses({ runId: 'no-such-run-ever' }, 5000)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('pidsHandedOutAfter', () => {
  it('holds exactly the pids the kernel hands out after one pid up to another, across the wrap', () => {
    const max = 400;
    fc.assert(
      fc.property(fc.integer({ min: 1, max }), fc.integer({ min: 1, max }), (from, to) => {
        // Walk the kernel's order: from+1 upwards, back to 1 after max, until `to`.
        const handedOut = new Set<number>();
        for (let pid = from; pid !== to; ) {
          pid = pid === max ? 1 : pid + 1;
          handedOut.add(pid);
        }
        const isNew = pidsHandedOutAfter(from, to);
        for (let pid = 1; pid <= max; pid++) expect(isNew(pid)).toBe(handedOut.has(pid));
      }),
    );
  });
});
