import {
  MEMORY_TYPES,
  type MemoryEntry,
  type MemoryType,
  matchMemoryType,
  normalizeTags,
  renderMemoryEntry,
  SECTION_TITLES,
} from './memory.ts';

// Headings of level 1–3 delimit sections and entries; deeper ones may be part of hand-written content.
const HEADING = /^(#{1,3})\s+(.*?)\s*$/;
const ENTRY_ID = /^(mem-[A-Za-z0-9_-]+)\b/;
const METADATA = /^<!--(.*)-->\s*$/;

/** An entry and where it lies in the file. */
export interface Located extends MemoryEntry {
  /** First and last line (inclusive) of the entry in the file. */
  start: number;
  end: number;
}
interface Section {
  type: MemoryType;
  heading: number;
  /** Index of the line that ends the section (the next level 1–2 heading, or the line count). */
  end: number;
}
/** A memories file as lines, with where its entries and sections lie. */
export interface ParsedFile {
  lines: string[];
  entries: Located[];
  sections: Section[];
}

function parseMetadata(text: string): { tags: string[]; created: string } | undefined {
  if (!/\b(tags|created)\s*:/.test(text)) return undefined;
  let tags: string[] = [];
  let created = '';
  for (const part of text.split('|')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const key = part.slice(0, colon).trim().toLowerCase();
    const value = part.slice(colon + 1).trim();
    if (key === 'tags') tags = normalizeTags(value);
    else if (key === 'created') created = value;
  }
  return { tags, created };
}

/** Parses the file leniently: never throws, and records where each entry and section lies. */
export function parseMemoriesFile(text: string): ParsedFile {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const entries: Located[] = [];
  const sections: Section[] = [];
  let section: Section | undefined;
  let sectionType: MemoryType | undefined;
  let open: { id: string; type: MemoryType; start: number; body: string[]; lastBody: number } | undefined;

  const finish = (meta: { tags: string[]; created: string } | undefined, end: number) => {
    if (!open) return;
    const content = open.body.map((l) => (l.startsWith('>') ? l.slice(1).replace(/^ /, '') : l)).join('\n');
    entries.push({
      id: open.id,
      type: open.type,
      content: content.trim(),
      tags: meta?.tags ?? [],
      created: meta?.created ?? '',
      start: open.start,
      end,
    });
    open = undefined;
  };

  lines.forEach((rawLine, i) => {
    const line = rawLine.replace(/\r$/, '');
    const heading = HEADING.exec(line);
    if (heading) {
      finish(undefined, open?.lastBody ?? i);
      const level = heading[1]!.length;
      const title = heading[2]!;
      if (level <= 2) {
        if (section) section.end = i;
        section = undefined;
        sectionType = undefined;
        if (level === 2) {
          const type = matchMemoryType(title);
          if (type) {
            sectionType = type;
            section = { type, heading: i, end: lines.length };
            sections.push(section);
          }
        }
        return;
      }
      const id = ENTRY_ID.exec(title)?.[1];
      if (id) open = { id, type: sectionType ?? 'pattern', start: i, body: [], lastBody: i };
      return;
    }
    if (!open) return;
    const meta = METADATA.exec(line);
    const parsed = meta ? parseMetadata(meta[1]!) : undefined;
    if (parsed) {
      finish(parsed, i);
      return;
    }
    open.body.push(line);
    if (line.trim() !== '') open.lastBody = i;
  });
  finish(undefined, open?.lastBody ?? lines.length - 1);
  return { lines, entries, sections };
}

/** Memory entries in file order (pure; never throws on hand-edited text). */
export function parseMemories(text: string): MemoryEntry[] {
  return parseMemoriesFile(text).entries.map(({ start: _s, end: _e, ...entry }) => entry);
}

/** The lines of the file with the entry added at the end of its section (created if missing). */
export function insertMemoryEntry(parsed: ParsedFile, entry: MemoryEntry): string[] {
  const lines = [...parsed.lines];
  const block = renderMemoryEntry(entry);
  const section = parsed.sections.find((s) => s.type === entry.type);
  if (section) {
    let last = section.end - 1;
    while (last > section.heading && lines[last]!.trim() === '') last--;
    lines.splice(last + 1, 0, '', ...block);
    const next = last + 2 + block.length;
    if (next < lines.length && lines[next]!.trim() !== '') lines.splice(next, 0, '');
    return lines;
  }
  // A missing section goes before the first section that comes after it in the canonical order.
  const order = MEMORY_TYPES.indexOf(entry.type);
  const before = parsed.sections.find((s) => MEMORY_TYPES.indexOf(s.type) > order);
  const fresh = [`## ${SECTION_TITLES[entry.type]}`, '', ...block];
  if (before) {
    lines.splice(before.heading, 0, ...fresh, '');
    return lines;
  }
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
  if (lines.length > 0) lines.push('');
  lines.push(...fresh);
  return lines;
}
