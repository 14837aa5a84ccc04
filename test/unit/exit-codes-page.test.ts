import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_FOR_REASON } from '../../src/engine/decide/limits.ts';
import { ROOT } from '../helpers/workspace.ts';

/** The exit-code table of docs/reference/exit-codes.md (the README links to it): code → the row's text. */
function exitTable(): Map<number, string> {
  const page = readFileSync(join(ROOT, 'docs', 'reference', 'exit-codes.md'), 'utf8');
  const section = page.split('# Exit codes')[1]?.split('\n## ')[0] ?? '';
  const rows = section.split('\n').filter((l) => /^\| \d+ \|/.test(l));
  return new Map(rows.map((r) => [Number(/^\| (\d+) \|/.exec(r)![1]), r]));
}

describe('the exit-code table of docs/reference/exit-codes.md', () => {
  it('lists every stop reason under the exit code Ralph gives it', () => {
    const table = exitTable();
    expect([...table.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 130]);
    const wrong = Object.entries(EXIT_FOR_REASON)
      .filter(([reason, code]) => !table.get(code)?.includes(`\`${reason}\``))
      .map(([reason, code]) => `${reason} (exit ${code})`);
    expect(wrong).toEqual([]);
  });
});
