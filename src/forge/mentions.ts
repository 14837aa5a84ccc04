/**
 * The character put between `@` and a name so that the name mentions nobody: a zero-width space
 * shows nothing, and GitHub, Slack, Discord and Telegram all stop reading a name at it.
 */
export const MENTION_BREAK = '\u200b';

/** `@` at the start of a word, followed by a name: how GitHub, Slack and Telegram spot a mention. */
const MENTION = /(^|[^\p{L}\p{N}_`])@(?=[\p{L}\p{N}_])/gu;

/**
 * Text that can mention nobody (pure): `@alice`, `@org/team`, `@everyone`, `@channel` get an
 * invisible {@link MENTION_BREAK} after the `@`, so they read the same and notify no one. An
 * address like `bob@example.com` is not a mention and stays as it is.
 */
export function defuseMentions(text: string): string {
  return text.replace(MENTION, `$1@${MENTION_BREAK}`);
}
