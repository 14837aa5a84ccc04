import { describe, expect, it } from 'vitest';
import { formatAge, formatDuration, formatSpan, localTime } from '../../../../src/state/io/time-format.ts';

describe('time format', () => {
  it('local time by pattern: log headers, file names, checklist markers', () => {
    const at = new Date(2026, 0, 2, 3, 4, 5);
    expect(localTime(at, 'YYYY-MM-DD HH:mm:ss')).toBe('2026-01-02 03:04:05');
    expect(localTime(at.getTime(), 'YYYYMMDD-HHmmss')).toBe('20260102-030405');
    expect(localTime(at, 'YYYY-MM-DDTHH-mm-ss')).toBe('2026-01-02T03-04-05');
    expect(localTime(at, 'YYYY-MM-DD HH:mm')).toBe('2026-01-02 03:04');
  });

  it('the two duration wordings: console/log and status line', () => {
    expect([850, 45_000, 152_000, 3_840_000, 200 * 3_600_000].map(formatDuration)).toEqual([
      '850ms',
      '45s',
      '2m 32s',
      '1h 04m',
      '200h 00m',
    ]);
    expect([-5, 999, 45_000, 252_000, 7_500_000, 76 * 3_600_000].map(formatSpan)).toEqual([
      'under 1s',
      'under 1s',
      '45s',
      '4m12s',
      '2h05m',
      '3d04h',
    ]);
    expect([500, 12_000].map(formatAge)).toEqual(['just now', '12s ago']);
  });
});
