// Reset times that agents print in their limit messages, as epoch ms.

/** Month abbreviations as agents print them, lower case, January first. */
export const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Reads the reset time out of Claude Code's limit message: `resets 7:53am (UTC)`,
 * `resets Nov 24, 7:07am (UTC)`, `resets 3pm (America/New_York)`, or `…|<epoch seconds>`.
 * Returns epoch ms, or undefined when the text names no time.
 */
export function parseResetTime(text: string, now: number = Date.now()): number | undefined {
  const epoch = /\|(\d{9,11})\b/.exec(text);
  if (epoch) return Number(epoch[1]) * 1000;
  const m =
    /resets\s+(?:at\s+)?(?:([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b(?:\s*\(([^)]+)\))?/i.exec(
      text,
    );
  if (!m) return undefined;
  const [, monthName, day, hourText, minuteText, ampm, zoneText] = m;
  const hour = (Number(hourText) % 12) + (ampm?.toLowerCase() === 'pm' ? 12 : 0);
  const minute = Number(minuteText ?? 0);
  const zone = zoneText?.trim() || 'UTC';
  const month = monthName ? MONTHS.indexOf(monthName.toLowerCase()) : -1;
  const today = wallClock(now, zone);
  if (!today) return undefined;
  if (month >= 0 && day) {
    // A date without a year: this year's, or next year's if that is already well past.
    let at = zonedTime(today.year, month, Number(day), hour, minute, zone);
    if (at < now - 86_400_000) at = zonedTime(today.year + 1, month, Number(day), hour, minute, zone);
    return at;
  }
  // A time of day only: its next occurrence (today, or tomorrow when it has passed).
  let at = zonedTime(today.year, today.month, today.day, hour, minute, zone);
  if (at < now - 60_000) at = zonedTime(today.year, today.month, today.day + 1, hour, minute, zone);
  return at;
}

/** The calendar date at `ms` in an IANA zone, or undefined for a zone Intl does not know. */
function wallClock(ms: number, zone: string): { year: number; month: number; day: number } | undefined {
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
    }).formatToParts(ms);
    const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
    return { year: get('year'), month: get('month') - 1, day: get('day') };
  } catch {
    return undefined;
  }
}

/** Epoch ms of a wall-clock time in an IANA zone (month 0-based; day may overflow). */
function zonedTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  zone: string,
): number {
  const asUtc = Date.UTC(year, month, day, hour, minute);
  // The zone's offset at that instant, applied twice to settle across a DST change.
  let at = asUtc - offsetMs(asUtc, zone);
  at = asUtc - offsetMs(at, zone);
  return at;
}

function offsetMs(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(ms);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const local = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return local - Math.floor(ms / 1000) * 1000;
}
