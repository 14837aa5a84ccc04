import { describe, expect, it } from 'vitest';
import {
  parseProgressEntries,
  splitProgress,
  withArchiveLink,
} from '../../../src/workflows/progress-archive.ts';

const NOW = new Date('2026-03-10T23:59:00Z');

describe('PROGRESS.md entries and their dates', () => {
  it('an entry is a ## or ### heading with a valid date, up to the next heading of its level or higher', () => {
    const text = [
      '# Progress Log',
      '## Completed Tasks',
      '### 2026-02-01',
      '- [x] a',
      '#### detail 2026-01-01',
      'body',
      '### 2026-13-40 not a date',
      '## --- Iteration 3 Start (2026-01-05T10:00:00Z) ---',
      '```',
      '## 2020-01-01 inside a fence',
      '```',
      '# 2020-01-01 level one is not an entry',
    ].join('\n');
    const entries = parseProgressEntries(text);
    expect(entries.map((e) => e.date)).toEqual(['2026-02-01', '2026-01-05']);
    expect(entries[0]!.text).toBe('### 2026-02-01\n- [x] a\n#### detail 2026-01-01\nbody');
    expect(entries[1]!.text).toContain('## 2020-01-01 inside a fence');
  });

  it('moves entries older than N whole days (UTC); exactly N days old stays; undated text stays', () => {
    const text = '# Log\n\n### 2026-02-08\n- kept\n\n### 2026-02-07\n- moved\n\n## Notes\nundated\n';
    const split = splitProgress(text, 30, NOW);
    expect([...split.moved]).toEqual([['2026-02', ['### 2026-02-07\n- moved']]]);
    expect(split.live).toBe('# Log\n\n### 2026-02-08\n- kept\n\n## Notes\nundated\n');
    expect(splitProgress(text, 0, NOW).moved.size).toBe(0);
  });

  it('links the archive months once, after the title, and replaces an old link line', () => {
    const linked = withArchiveLink('# Log\n\n### 2026-03-01\n', ['2026-01']);
    expect(linked).toBe(
      '# Log\n\n> Older entries are archived by month: [2026-01](progress/archive/2026-01.md)\n\n### 2026-03-01\n',
    );
    const relinked = withArchiveLink(splitProgress(linked, 30, NOW).live, ['2026-01', '2026-02']);
    expect(relinked.match(/Older entries/g)).toHaveLength(1);
    expect(relinked).toContain('[2026-02](progress/archive/2026-02.md)');
  });
});
