import { defuseMentions } from '../forge/mentions.ts';

// Text from the agent (a question, a stop message, a log tail) goes to chats where some
// characters mean "mention everyone" or "link here": each format escapes what its client parses.

/**
 * Text for a Slack message (pure): `&`, `<` and `>` as `&amp;`, `&lt;`, `&gt;`, as Slack's
 * formatting reference asks, so `<!channel>`, `<!here>`, `<@U123>` and `<http://x|label>` show as
 * typed; and every `@name` defused (`@channel` written plainly).
 */
export function slackText(text: string): string {
  return defuseMentions(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
}

/**
 * Discord's markdown (emphasis, code, spoilers, quotes, links, headings): a backslash before each
 * shows it as typed. An `_` inside a word (`max_iterations`) starts nothing and stays as it is.
 */
const DISCORD_MARKDOWN = /[\\*~`|<>[\]()#]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;

/**
 * Text for a Discord message (pure): every markdown character escaped with a backslash, so
 * `**bold**` and `[label](http://x)` show as typed (Discord hides the backslashes), and every
 * `@name` defused; the payload's `allowed_mentions` forbids pings as well.
 */
export function discordText(text: string): string {
  return defuseMentions(text).replace(DISCORD_MARKDOWN, '\\$&');
}

/**
 * Text for a Telegram message (pure). Ralph sends plain text (no `parse_mode`), so nothing in it
 * is formatting or a hidden link; what remains is `@name`, which Telegram makes a mention: defused.
 */
export function telegramText(text: string): string {
  return defuseMentions(text);
}

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
