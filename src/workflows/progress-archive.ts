import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendLine } from '../state/io/append-line.ts';
import { writeFileAtomicSync } from '../state/io/atomic-write.ts';
import { readOptional } from '../state/io/read-optional.ts';
import { parseHeading, scanMarkdown } from './checklist-parse.ts';

/**
 * PROGRESS.md archiving (`progress.archive_after_days`). An entry is a `##` or `###` heading whose
 * title holds a `YYYY-MM-DD` date (seed 002's `### 2026-02-04`, a journal's
 * `## --- Iteration 3 Start (2026-02-04T…) ---`), up to the next heading of its level or higher.
 * Entries older than the limit move to `progress/archive/YYYY-MM.md` (by the entry's month) next to
 * the file; undated text stays live.
 */
export interface ProgressEntry {
  /** `YYYY-MM-DD` from the heading. */
  date: string;
  /** The entry's lines as written, without trailing blank lines. */
  text: string;
  /** First line and the line after the entry (with its trailing blank lines). */
  start: number;
  end: number;
}

/** Where an archive month lives, relative to the progress file's directory. */
export const ARCHIVE_DIR = join('progress', 'archive');
const LINK_PREFIX = '> Older entries are archived by month:';
const DATE = /(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/;

/** The first valid `YYYY-MM-DD` in a heading's title, else undefined. */
function headingDate(title: string): string | undefined {
  const m = DATE.exec(title);
  if (!m) return undefined;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return day.toISOString().slice(0, 10) === m[0] ? m[0] : undefined;
}

/** The dated entries of a progress file in file order (pure; headings in code fences or comments don't count). */
export function parseProgressEntries(text: string): ProgressEntry[] {
  const lines = text.split('\n');
  const headings = scanMarkdown(text).flatMap(({ line, visible }) => {
    const h = parseHeading(visible);
    return h ? [{ line: line - 1, level: h.level, title: h.text }] : [];
  });
  const entries: ProgressEntry[] = [];
  let from = 0;
  for (const [k, h] of headings.entries()) {
    const date = headingDate(h.title);
    if (h.line < from || (h.level !== 2 && h.level !== 3) || !date) continue;
    const next = headings.slice(k + 1).find((o) => o.level <= h.level);
    const end = next?.line ?? lines.length;
    let last = end - 1;
    while (last > h.line && lines[last]!.trim() === '') last--;
    entries.push({ date, text: lines.slice(h.line, last + 1).join('\n'), start: h.line, end });
    from = end;
  }
  return entries;
}

/** Whole days from `date` (`YYYY-MM-DD`, UTC) to the UTC day of `now`. */
function ageInDays(date: string, now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((today - Date.parse(`${date}T00:00:00Z`)) / 86_400_000);
}

/** The split of a progress file (pure): what stays live and, by month, what moves. */
export interface ProgressSplit {
  /** The live text, without the archive link line (that is added once the archive is written). */
  live: string;
  /** `YYYY-MM` → the entries that move there, in file order. */
  moved: Map<string, string[]>;
}

export function splitProgress(text: string, afterDays: number, now: Date): ProgressSplit {
  const lines = text.split('\n');
  const moved = new Map<string, string[]>();
  const drop = new Set<number>();
  for (const entry of parseProgressEntries(text)) {
    if (afterDays <= 0 || ageInDays(entry.date, now) <= afterDays) continue;
    const month = entry.date.slice(0, 7);
    moved.set(month, [...(moved.get(month) ?? []), entry.text]);
    for (let i = entry.start; i < entry.end; i++) drop.add(i);
  }
  const live = lines.filter((line, i) => !drop.has(i) && !line.startsWith(LINK_PREFIX)).join('\n');
  return { live: text.endsWith('\n') && !live.endsWith('\n') ? `${live}\n` : live, moved };
}

/** The live text with one line linking the archive months (after a `# ` title, else first). */
export function withArchiveLink(live: string, months: readonly string[]): string {
  if (months.length === 0) return live;
  const links = months.map((m) => `[${m}](progress/archive/${m}.md)`).join(' · ');
  const link = `${LINK_PREFIX} ${links}`;
  const lines = live.split('\n');
  const at = lines[0]?.startsWith('# ') ? 1 : 0;
  const rest = lines.slice(at);
  while (rest.length > 0 && rest[0]!.trim() === '') rest.shift();
  return [...lines.slice(0, at), ...(at > 0 ? [''] : []), link, '', ...rest].join('\n');
}

/** The months archived next to `file`, oldest first. */
export function archivedMonths(file: string): string[] {
  const dir = join(dirname(file), ARCHIVE_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^\d{4}-\d{2}\.md$/.test(name))
    .map((name) => name.slice(0, 7))
    .sort();
}

/**
 * The text `text` (of `file`) has once archiveProgress ran, and what moves: the live part linking
 * every month archived so far and the ones this pass adds. What `ralph run --dry-run` shows.
 */
export function progressAfterArchive(
  file: string,
  text: string,
  afterDays: number,
  now: Date,
): { next: string; moved: Map<string, string[]> } {
  const { live, moved } = splitProgress(text, afterDays, now);
  const months = [...new Set([...archivedMonths(file), ...moved.keys()])].sort();
  return { next: withArchiveLink(live, months), moved };
}

/** What one archiving pass did: the entries moved and the month files they went to. */
export interface ArchiveResult {
  moved: number;
  months: string[];
}

/**
 * Moves the entries of `file` older than `afterDays` to their month's archive. Crash-safe: the
 * archive is appended (and an entry whose exact text is already there is not appended again)
 * before the live file is rewritten atomically, so an entry is always in one file or both, and a
 * re-run after a crash between the two finishes the move without a duplicate.
 */
export function archiveProgress(file: string, afterDays: number, now: Date): ArchiveResult {
  const text = readOptional(file, 'throw');
  if (text === undefined || afterDays <= 0) return { moved: 0, months: [] };
  const { next, moved } = progressAfterArchive(file, text, afterDays, now);
  let count = 0;
  for (const [month, entries] of moved) {
    const path = join(dirname(file), ARCHIVE_DIR, `${month}.md`);
    const archived = readOptional(path, 'throw');
    const fresh = entries.filter((e) => !archived?.includes(e));
    count += entries.length;
    if (fresh.length === 0) continue;
    const head = archived === undefined ? `# Progress archive ${month}\n\n` : '\n';
    writeArchive(path, `${head}${fresh.join('\n\n')}`, archived === undefined);
  }
  if (next !== text) writeFileAtomicSync(file, next);
  return { moved: count, months: [...moved.keys()] };
}

/** Appends to a month file; a new one is written whole (atomically) so it never starts torn. */
function writeArchive(path: string, chunk: string, create: boolean): void {
  if (create) writeFileAtomicSync(path, `${chunk}\n`);
  else appendLine(path, chunk);
}
