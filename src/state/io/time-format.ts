/**
 * The one place that turns moments and durations into text: local timestamps (file names, log
 * headers, checklist markers) and the two duration wordings people read; and the one parser of
 * duration phrases (`90m`, `1h30m`, `37.5s`, `2 hours`, `4 days 3 hours`), which reads both.
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

/** Milliseconds per unit, each spelling longest first (`ms` before `m`, `mins` before `m`). */
const UNITS: readonly [string, number][] = [
  ['milliseconds?|msecs?|ms', 1],
  ['seconds?|secs?|s', 1000],
  ['minutes?|mins?|m', 60_000],
  ['hours?|hrs?|h', 3_600_000],
  ['days?|d', 86_400_000],
  ['weeks?|wks?|w', 604_800_000],
];
const UNIT = UNITS.map(([spellings]) => `(${spellings})`).join('|');
/** One part: a number and its unit, not followed by a letter (`5m` but not `5mo`). */
const PART = String.raw`(\d+(?:\.\d+)?)\s*(?:${UNIT})(?![a-z])`;
const PART_SOURCE = String.raw`\d+(?:\.\d+)?\s*(?:${UNITS.map(([s]) => s).join('|')})(?![a-z])`;

/**
 * A duration phrase inside a larger text, for a RegExp with the `i` flag: parts with units, apart
 * or together, with commas and `and` between them (`1h30m`, `2 hours, 5 minutes and 3 seconds`).
 * Each separator matches one way only, so text an agent wrote cannot make it backtrack for long.
 */
export const DURATION_PHRASE = String.raw`${PART_SOURCE}(?:(?:\s*,\s*|\s+)?(?:and\s+)?${PART_SOURCE})*`;

const WHOLE = new RegExp(`^(?:${DURATION_PHRASE})$`, 'i');
const EACH = new RegExp(PART, 'gi');

/**
 * The milliseconds a duration phrase says (the whole text, spaces around it aside): `850ms`, `37.5s`,
 * `90m`, `1h30m`, `2m 32s`, `7d`, `2w`, `2 hours`, `4 days 3 hours`. Undefined for anything else,
 * or for a number too large to hold.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) return undefined;
  let ms = 0;
  for (const m of trimmed.matchAll(EACH)) {
    const unit = UNITS[m.slice(2).findIndex((g) => g !== undefined)]?.[1] ?? Number.NaN;
    ms += Number(m[1]) * unit;
  }
  return Number.isFinite(ms) ? ms : undefined;
}
