import { esc } from '../../src/dashboard/charts.ts';
import type { ScreenCell } from './screen.ts';

/**
 * What varies between two runs of the same frame (a clock, a run id, a commit) and the fixed text
 * it becomes. The replacement takes the style of the first cell it replaces; a replacement of
 * another length moves the rest of its row, so use those only where nothing follows in the row.
 */
export interface FrameRule {
  pattern: RegExp;
  replace: (match: RegExpExecArray) => string;
}

const blank = (c: ScreenCell) => c.char === ' ' && c.bg === 'default' && !c.inverse;

/** The frame with every rule applied, rows in order, each row left to right; trailing blanks dropped. */
export function normaliseFrame(rows: readonly ScreenCell[][], rules: readonly FrameRule[]): ScreenCell[][] {
  return rows.map((cells) => {
    let row = [...cells];
    for (const rule of rules) {
      // Cell index of each UTF-16 unit of the row's text (a cell may hold a surrogate pair).
      const unitCell = row.flatMap((c, i) => [...Array(c.char.length)].map(() => i));
      const text = row.map((c) => c.char).join('');
      const global = new RegExp(rule.pattern.source, `${rule.pattern.flags.replace('g', '')}g`);
      const edits = [...text.matchAll(global)].map((m) => {
        const start = unitCell[m.index] as number;
        const end = (unitCell[m.index + m[0].length - 1] as number) + 1;
        return { start, end, text: rule.replace(m as RegExpExecArray) };
      });
      for (const e of edits.reverse()) {
        const style = row[e.start] as ScreenCell;
        row.splice(e.start, e.end - e.start, ...[...e.text].map((char) => ({ ...style, char })));
      }
    }
    while (row.length > 0 && blank(row.at(-1) as ScreenCell)) row = row.slice(0, -1);
    return row;
  });
}

/** The rows as text, trailing spaces trimmed (what `screen()` returns, after normalising). */
export const frameText = (rows: readonly ScreenCell[][]): string[] =>
  rows.map((r) =>
    r
      .map((c) => c.char)
      .join('')
      .trimEnd(),
  );

// A dark theme: the 16 ANSI colours, then the default foreground and background.
// biome-ignore format: a palette reads best in rows of eight
const ANSI = [
  '#1d1f21', '#e05561', '#8cc265', '#d18f52', '#4aa5f0', '#c162de', '#42b3c2', '#d7dae0',
  '#5c6370', '#ff616e', '#a5e075', '#f0a45d', '#4dc4ff', '#de73ff', '#4cd1e0', '#ffffff',
];
const FG = '#d7dae0';
const BG = '#1d1f21';
const FONT = 14;
const CELL_W = 8.4;
const LINE_H = 18;
const PAD = 14;
const BAR = 30;

/** A palette index (xterm's 256) or `#rrggbb` as a colour. */
function hex(c: ScreenCell['fg']): string | undefined {
  if (c === 'default') return undefined;
  if (typeof c === 'string') return c;
  if (c < 16) return ANSI[c];
  if (c >= 232) {
    const v = (8 + (c - 232) * 10).toString(16).padStart(2, '0');
    return `#${v}${v}${v}`;
  }
  const steps = [0, 95, 135, 175, 215, 255];
  const i = c - 16;
  return `#${[Math.floor(i / 36), Math.floor(i / 6) % 6, i % 6].map((n) => (steps[n] as number).toString(16).padStart(2, '0')).join('')}`;
}

const num = (n: number) => String(Math.round(n * 10) / 10);
// What `esc` wrote, read back.
const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&amp;': '&',
};
const unesc = (s: string) => s.replace(/&(?:lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e] as string);
const colX = (col: number) => PAD + col * CELL_W;
const rowY = (row: number) => BAR + PAD + row * LINE_H;

interface Run {
  col: number;
  text: string;
  fg: string | undefined;
  bg: string | undefined;
  bold: boolean;
  dim: boolean;
}

/** A row as runs of one style each (inverse resolved into colours; plain spaces left out). */
function runsOf(row: readonly ScreenCell[]): Run[] {
  const runs: Run[] = [];
  row.forEach((c, col) => {
    const fg = c.inverse ? (hex(c.bg) ?? BG) : hex(c.fg);
    const bg = c.inverse ? (hex(c.fg) ?? FG) : hex(c.bg);
    const last = runs.at(-1);
    if (last && last.col + [...last.text].length === col && last.fg === fg && last.bg === bg)
      if (last.bold === c.bold && last.dim === c.dim) {
        last.text += c.char;
        return;
      }
    if (c.char === ' ' && bg === undefined) return;
    runs.push({ col, text: c.char, fg, bg, bold: c.bold, dim: c.dim });
  });
  // Trailing spaces of a run with no background draw nothing.
  for (const r of runs) if (r.bg === undefined) r.text = r.text.trimEnd();
  return runs.filter((r) => r.text.length > 0);
}

/**
 * The frame as an SVG picture of a terminal window titled `title`: monospace text in the
 * terminal's colours and weight, each run stretched to its cells (so any monospace font keeps the
 * columns); `alt` describes it. The same frame always gives the same bytes.
 */
export function terminalSvg(
  rows: readonly ScreenCell[][],
  size: { cols: number; rows: number },
  o: { title: string; alt: string },
): string {
  const width = 2 * PAD + size.cols * CELL_W;
  const height = BAR + 2 * PAD + size.rows * LINE_H;
  const backs: string[] = [];
  const texts: string[] = [];
  rows.forEach((row, y) => {
    const spans = runsOf(row).map((r) => {
      const cells = [...r.text].length;
      if (r.bg)
        backs.push(
          `<rect x="${num(colX(r.col))}" y="${num(rowY(y))}" width="${num(cells * CELL_W)}" height="${LINE_H}" fill="${r.bg}"/>`,
        );
      const attrs = [
        `x="${num(colX(r.col))}"`,
        `textLength="${num(cells * CELL_W)}"`,
        r.fg ? `fill="${r.fg}"` : '',
        r.bold ? 'font-weight="bold"' : '',
        r.dim ? 'opacity="0.6"' : '',
      ];
      return `<tspan ${attrs.filter(Boolean).join(' ')}>${esc(r.text)}</tspan>`;
    });
    if (spans.length)
      texts.push(`<text y="${num(rowY(y) + FONT)}" xml:space="preserve">${spans.join('')}</text>`);
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}" data-cols="${size.cols}" data-rows="${size.rows}">`,
    `<title>${esc(o.alt)}</title>`,
    `<rect width="100%" height="100%" rx="8" fill="${BG}"/>`,
    `<rect width="100%" height="${BAR}" rx="8" fill="#2c2f33"/><rect y="${BAR - 8}" width="100%" height="8" fill="#2c2f33"/>`,
    `<circle cx="18" cy="15" r="6" fill="#ff5f57"/><circle cx="38" cy="15" r="6" fill="#febc2e"/><circle cx="58" cy="15" r="6" fill="#28c840"/>`,
    `<text x="50%" y="20" text-anchor="middle" font-family="sans-serif" font-size="13" fill="#9da5b4">${esc(o.title)}</text>`,
    ...backs,
    `<g font-family="'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="${FONT}" fill="${FG}">`,
    ...texts,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}

/** The text a `terminalSvg` picture shows, row by row (trailing spaces trimmed): what a stale picture is told by. */
export function svgFrameText(svg: string): string[] {
  const rows = Number(/data-rows="(\d+)"/.exec(svg)?.[1] ?? 0);
  const out: string[][] = Array.from({ length: rows }, () => []);
  for (const t of svg.matchAll(/<text y="([\d.]+)" xml:space="preserve">(.*?)<\/text>/g)) {
    const y = Math.round((Number(t[1]) - FONT - BAR - PAD) / LINE_H);
    const row = out[y];
    if (!row) continue;
    for (const s of (t[2] as string).matchAll(/<tspan x="([\d.]+)"[^>]*>(.*?)<\/tspan>/g)) {
      const col = Math.round((Number(s[1]) - PAD) / CELL_W);
      [...unesc(s[2] as string)].forEach((ch, i) => {
        while (row.length < col + i) row.push(' ');
        row[col + i] = ch;
      });
    }
  }
  return out.map((r) => r.join('').trimEnd());
}
