// Text cut to fit a width: the terminal UI's panes and `ralph stats`' 80 columns use the same rules.

/**
 * Each text cut into lines of at most `width` characters, continuation lines indented by two; cut
 * at spaces (which go) when the word fits on a line, mid-word only for a longer word.
 */
export function wrapLines(texts: readonly string[], width: number): string[] {
  const w = Math.max(4, width);
  return texts.flatMap((text) => {
    const [first = '', ...rest] = breakAtWords([...text], w, w - 2);
    return [first, ...rest.map((r) => `  ${r}`)];
  });
}

/**
 * Rows of at most `first` characters (the first row) and `rest` (the others). A row ends before
 * the last space that lets it fit, and the spaces there are dropped; a word longer than a row is cut.
 */
export function breakAtWords(chars: readonly string[], first: number, rest: number): string[] {
  const rows: string[] = [];
  let i = 0;
  let w = Math.max(1, first);
  while (chars.length - i > w) {
    let cut = i + w;
    while (cut > i && chars[cut] !== ' ') cut--;
    if (cut > i) {
      rows.push(chars.slice(i, cut).join(''));
      i = cut + 1;
      while (chars[i] === ' ') i++;
    } else {
      rows.push(chars.slice(i, i + w).join(''));
      i += w;
    }
    w = Math.max(1, rest);
  }
  if (i < chars.length || rows.length === 0) rows.push(chars.slice(i).join(''));
  return rows;
}

/** Cuts a line to `width` columns (code points; wide characters count as one, close enough). */
export function clip(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}
