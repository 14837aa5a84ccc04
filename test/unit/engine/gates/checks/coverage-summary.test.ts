import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCoverageTotal } from '../../../../../src/engine/gates/checks/coverage-summary.ts';
import { makeWorkspace } from '../../../../helpers/workspace.ts';

describe('readCoverageTotal', () => {
  it('reads the total of istanbul/c8, coverage.py and lcov summaries', () => {
    const since = Date.now() - 500;
    const istanbul = makeWorkspace({
      'coverage/coverage-summary.json': JSON.stringify({
        total: { lines: { total: 8, covered: 7, pct: 87.5 } },
      }),
    });
    expect(readCoverageTotal(istanbul, since)).toEqual({
      pct: 87.5,
      source: 'coverage/coverage-summary.json',
    });
    const py = makeWorkspace({ 'coverage.json': JSON.stringify({ totals: { percent_covered: 66.666666 } }) });
    expect(readCoverageTotal(py, since)).toEqual({ pct: 66.67, source: 'coverage.json' });
    // Two files: 3 of 4 and 1 of 4 lines hit.
    const lcov = makeWorkspace({
      'coverage/lcov.info': 'SF:a.ts\nLF:4\nLH:3\nend_of_record\nSF:b.ts\nLF:4\nLH:1\nend_of_record\n',
    });
    expect(readCoverageTotal(lcov, since)).toEqual({ pct: 50, source: 'coverage/lcov.info' });
  });

  it('ignores a summary older than the tests run, a damaged one, and none at all', () => {
    const ws = makeWorkspace({
      'coverage/coverage-summary.json': JSON.stringify({ total: { lines: { pct: 90 } } }),
      'lcov.info': 'not lcov',
    });
    const old = (Date.now() - 3_600_000) / 1000;
    utimesSync(join(ws, 'coverage/coverage-summary.json'), old, old);
    expect(readCoverageTotal(ws, Date.now())).toBeUndefined();
    expect(readCoverageTotal(makeWorkspace({ 'coverage.json': '{"totals": {' }), 0)).toBeUndefined();
    expect(readCoverageTotal(makeWorkspace(), 0)).toBeUndefined();
  });
});
