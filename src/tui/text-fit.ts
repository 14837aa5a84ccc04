import stringWidth from 'string-width';
import stripAnsi from 'strip-ansi';

// Text cut to fit a width: the terminal UI's panes, `ralph stats`' 80 columns and the `ralph tools`
// tables use the same rules. Widths are terminal columns: a CJK character or an emoji takes two,
// a combining mark or an escape sequence none, and a grapheme (a flag, a family emoji) is never split.

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const graphemes = new Intl.Segmenter();

/** The columns a text takes in a terminal. */
export function columns(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

/** Escape sequences (colours, OSC-8 links, cursor moves) and control characters removed; tabs as two spaces. */
export function clean(text: string): string {
  return stripAnsi(text)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .replace(/\t/g, '  ');
}

interface Cell {
  text: string;
  width: number;
}

/** The text's graphemes, each with its width. */
function cellsOf(text: string): Cell[] {
  if (PRINTABLE_ASCII.test(text)) return [...text].map((c) => ({ text: c, width: 1 }));
  return [...graphemes.segment(text)].map(({ segment }) => ({ text: segment, width: stringWidth(segment) }));
}

/** Pads a text with spaces to `width` columns (longer text is left as it is). */
export function padColumns(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - columns(text)));
}

/**
 * Each text cut into lines of at most `width` columns, continuation lines indented by two; cut
 * at spaces (which go) when the word fits on a line, mid-word only for a longer word.
 */
export function wrapLines(texts: readonly string[], width: number): string[] {
  const w = Math.max(4, width);
  return texts.flatMap((text) => {
    const [first = '', ...rest] = breakAtWords(text, w, w - 2);
    return [first, ...rest.map((r) => `  ${r}`)];
  });
}

/**
 * Rows of at most `first` columns (the first row) and `rest` (the others). A row ends before the
 * last space that lets it fit, and the spaces there are dropped; a word longer than a row is cut
 * (between graphemes; a character wider than the row gets a row of its own).
 */
export function breakAtWords(text: string, first: number, rest: number): string[] {
  const cells = cellsOf(text);
  const join = (from: number, to: number) => cells.slice(from, to).reduce((s, c) => s + c.text, '');
  // left[i]: the columns from cell i to the end.
  const left = new Array<number>(cells.length + 1).fill(0);
  for (let i = cells.length - 1; i >= 0; i--) left[i] = (left[i + 1] as number) + (cells[i] as Cell).width;
  const rows: string[] = [];
  let i = 0;
  let w = Math.max(1, first);
  while ((left[i] as number) > w) {
    let end = i;
    for (let used = 0; end < cells.length && used + (cells[end] as Cell).width <= w; end++)
      used += (cells[end] as Cell).width;
    let cut = end;
    while (cut > i && cells[cut]?.text !== ' ') cut--;
    if (cut > i) {
      rows.push(join(i, cut));
      i = cut + 1;
      while (cells[i]?.text === ' ') i++;
    } else {
      end = Math.max(end, i + 1);
      rows.push(join(i, end));
      i = end;
    }
    w = Math.max(1, rest);
  }
  if (i < cells.length || rows.length === 0) rows.push(join(i, cells.length));
  return rows;
}

/** Cuts a line to `width` columns, ending it with `…` when something was cut. */
export function clip(text: string, width: number): string {
  if (columns(text) <= width) return text;
  const room = width <= 1 ? width : width - 1;
  let out = '';
  let used = 0;
  for (const cell of cellsOf(text)) {
    if (used + cell.width > room) break;
    out += cell.text;
    used += cell.width;
  }
  return width <= 1 ? out : `${out}…`;
}
