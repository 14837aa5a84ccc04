import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A coverage total: line coverage in percent, and the file it was read from (workspace-relative). */
export interface CoverageTotal {
  pct: number;
  source: string;
}

type Parse = (text: string) => number | undefined;

const finite = (n: unknown): number | undefined =>
  typeof n === 'number' && Number.isFinite(n) ? n : undefined;

/** istanbul / c8 `json-summary`: `{ total: { lines: { pct } } }`. */
const istanbul: Parse = (text) =>
  finite((JSON.parse(text) as { total?: { lines?: { pct?: unknown } } }).total?.lines?.pct);

/** coverage.py `coverage json`: `{ totals: { percent_covered } }`. */
const coveragePy: Parse = (text) =>
  finite((JSON.parse(text) as { totals?: { percent_covered?: unknown } }).totals?.percent_covered);

/** lcov: lines found (`LF:`) and hit (`LH:`) summed over every file. */
const lcov: Parse = (text) => {
  let found = 0;
  let hit = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('LF:')) found += Number(line.slice(3)) || 0;
    else if (line.startsWith('LH:')) hit += Number(line.slice(3)) || 0;
  }
  return found > 0 ? (hit * 100) / found : undefined;
};

/** Where the usual tools leave their summary, in the order they are looked for. */
export const COVERAGE_FILES: readonly [string, Parse][] = [
  ['coverage/coverage-summary.json', istanbul],
  ['coverage.json', coveragePy],
  ['coverage/lcov.info', lcov],
  ['lcov.info', lcov],
];

/**
 * The coverage total the tests gate just left in `workspace`: the first summary file written at or
 * after `since` (epoch ms) that reads as one, rounded to two decimals. An older file is a previous
 * run's and is not reported again; an unreadable one is skipped.
 */
export function readCoverageTotal(workspace: string, since: number): CoverageTotal | undefined {
  for (const [source, parse] of COVERAGE_FILES) {
    const path = join(workspace, source);
    try {
      // File times have coarser clocks on some file systems: a second's grace.
      if (statSync(path).mtimeMs < since - 1000) continue;
      const pct = parse(readFileSync(path, 'utf8'));
      if (pct !== undefined && pct >= 0 && pct <= 100) return { pct: Math.round(pct * 100) / 100, source };
    } catch {
      // Missing or not the format: the next candidate.
    }
  }
  return undefined;
}
