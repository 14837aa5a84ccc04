/**
 * Telegram refuses a message over 4,096 characters, counted as UTF-16 code units (the unit of its
 * entity offsets, and JavaScript's `length`).
 */
export const TELEGRAM_MAX_TEXT = 4096;

/**
 * Cuts `text` into parts of at most `max` UTF-16 units, in order, whose concatenation is `text`:
 * after the last line break that fits, else after the last space, else at `max` — never between
 * the two halves of a surrogate pair (an emoji).
 */
export function splitMessage(text: string, max = TELEGRAM_MAX_TEXT): string[] {
  if (max < 2) throw new RangeError('splitMessage: max must be at least 2');
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let cut = window.lastIndexOf('\n') + 1;
    if (cut === 0) cut = window.lastIndexOf(' ') + 1;
    if (cut === 0) cut = isHighSurrogate(rest.charCodeAt(max - 1)) ? max - 1 : max;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  parts.push(rest);
  return parts;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
