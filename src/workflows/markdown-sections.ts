/** One line of a markdown document, with where it sits in the text. */
export interface MdLine {
  /** The line without its line break (a trailing `\r` removed). */
  text: string;
  /** Offset of the line's first character. */
  start: number;
  /** Offset just past its last character (before the line break). */
  end: number;
  /** Inside a fenced code block (fence lines included): never a heading, never a list item. */
  fenced: boolean;
}

/** An ATX heading (`## Title`) outside fenced code. */
export interface MdHeading {
  /** Index into the lines. */
  line: number;
  level: number;
  /** The title without the `#` marks, trimmed. */
  title: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

function isCloser(text: string, char: string, length: number): boolean {
  const m = /^ {0,3}(`+|~+)[ \t]*$/.exec(text);
  return m !== null && m[1]![0] === char && m[1]!.length >= length;
}

/**
 * Splits markdown into lines and marks fenced code. An opening fence counts only when a matching
 * closing fence follows, so text appended after an unclosed fence is never swallowed by it.
 */
export function scanLines(markdown: string): MdLine[] {
  const lines: MdLine[] = [];
  let start = 0;
  for (const raw of markdown.split('\n')) {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    lines.push({ text, start, end: start + text.length, fenced: false });
    start += raw.length + 1;
  }
  for (let i = 0; i < lines.length; i++) {
    const m = FENCE.exec(lines[i]!.text);
    if (!m) continue;
    const char = m[1]![0]!;
    // A backtick fence's info string may not contain backticks (CommonMark).
    if (char === '`' && m[2]!.includes('`')) continue;
    let close = -1;
    for (let j = i + 1; j < lines.length; j++) {
      if (isCloser(lines[j]!.text, char, m[1]!.length)) {
        close = j;
        break;
      }
    }
    if (close < 0) continue;
    for (let j = i; j <= close; j++) lines[j]!.fenced = true;
    i = close;
  }
  return lines;
}

/** The ATX headings outside fenced code, in order. */
export function headings(lines: readonly MdLine[]): MdHeading[] {
  const out: MdHeading[] = [];
  lines.forEach((line, i) => {
    if (line.fenced) return;
    const m = HEADING.exec(line.text);
    if (!m) return;
    // A closing sequence of #s (preceded by a space) is not part of the title.
    const title = (m[2] ?? '').replace(/(?:^|[ \t]+)#+$/, '').trim();
    out.push({ line: i, level: m[1]!.length, title });
  });
  return out;
}

/**
 * Blanks closed HTML comments (template guidance), keeping line breaks so line numbers still
 * match. An unclosed `<!--` is plain text, so later text can never be swallowed by it.
 */
export function stripComments(text: string): string {
  return text.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ''));
}

/**
 * When `title` starts with the section `name` (case-insensitive, whole words, after any list
 * numbering or decoration such as `1.`, `**` or an emoji: "Tests" matches "Tests run" but not
 * "Testsuite"), the rest of the title as written (e.g. "3 — 2026-11-21"); else undefined.
 */
export function titleRemainder(title: string, name: string): string | undefined {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  const pattern = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
  const m = new RegExp(`^(?:\\d+[.)]\\s+)?[^\\p{L}\\p{N}]*${pattern}(?!\\p{L})([\\s\\S]*)$`, 'iu').exec(
    title.trim(),
  );
  if (!m) return undefined;
  // Drop the separator after the name (`:`, `—`, closing `**`), keep the rest as written.
  return m[1]!
    .replace(/^[\s:*_`—–\-|.,=>]+/u, '')
    .replace(/[*_`]+$/, '')
    .trim();
}
