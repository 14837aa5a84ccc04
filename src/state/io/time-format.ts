/**
 * The one place that turns moments and durations into text: local timestamps (file names, log
 * headers, checklist markers) and the two duration wordings people read.
 */

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * A moment in local time by a pattern of `YYYY`, `MM`, `DD`, `HH`, `mm`, `ss` (anything else is
 * kept): `localTime(at, 'YYYY-MM-DD HH:mm:ss')` → `2026-11-24 14:03:09`.
 */
export function localTime(at: Date | number, pattern: string): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  const parts: Record<string, string> = {
    YYYY: String(d.getFullYear()),
    MM: pad2(d.getMonth() + 1),
    DD: pad2(d.getDate()),
    HH: pad2(d.getHours()),
    mm: pad2(d.getMinutes()),
    ss: pad2(d.getSeconds()),
  };
  return pattern.replace(/YYYY|MM|DD|HH|mm|ss/g, (token) => parts[token] as string);
}

/** A duration of at least a second as its two largest units, `4m12s`; days only from `daysFrom` hours on. */
function twoUnits(ms: number, separator: string, daysFrom: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${separator}${pad2(s % 60)}s`;
  const h = Math.floor(m / 60);
  if (h < daysFrom) return `${h}h${separator}${pad2(m % 60)}m`;
  return `${Math.floor(h / 24)}d${separator}${pad2(h % 24)}h`;
}

/** A duration in a log or console line: `850ms`, `2m 32s`, `1h 04m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return twoUnits(ms, ' ', Number.POSITIVE_INFINITY);
}

/**
 * A duration as people read it in a status line: `under 1s`, `45s`, `4m12s`, `2h05m`, `3d04h` —
 * never `0ms` or a raw millisecond count.
 */
export function formatSpan(ms: number): string {
  const clamped = Math.max(0, ms);
  return clamped < 1000 ? 'under 1s' : twoUnits(clamped, '', 48);
}

/** How long ago a moment was: `just now`, `12s ago`, `4m12s ago`. */
export function formatAge(ms: number): string {
  return ms < 1000 ? 'just now' : `${formatSpan(ms)} ago`;
}
