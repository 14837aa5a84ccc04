/** `2m 32s`, `1h 04m`, `850ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** `1,234,567`: en-US digit grouping. */
export function formatNumber(n: number): string {
  // Integers (token counts) are grouped by hand: the first toLocaleString loads ICU's number data,
  // several milliseconds before the first agent starts.
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  return n.toLocaleString('en-US');
}

export function formatCost(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/**
 * A duration as people read it in a status line: `under 1s`, `45s`, `4m12s`, `2h05m`, `3d04h` —
 * never `0ms` or a raw millisecond count.
 */
export function formatSpan(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 1) return 'under 1s';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** How long ago a moment was: `just now`, `12s ago`, `4m12s ago`. */
export function formatAge(ms: number): string {
  return ms < 1000 ? 'just now' : `${formatSpan(ms)} ago`;
}

/**
 * A stop as one phrase: `reason — message`, or the message alone when it already names the reason
 * (`interrupted (Ctrl-C …)`, `stale loop: …`, `reached max_iterations (10)`): no line says it twice.
 */
export function stopText(reason: string, message: string | null | undefined, separator = ' — '): string {
  if (!message) return reason;
  const text = message.toLowerCase();
  const name = reason.toLowerCase();
  const named = text.includes(name) || text.includes(name.replace(/_/g, ' '));
  return named ? message : `${reason}${separator}${message}`;
}
