import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RalphError } from '../errors.ts';
import { writeFileAtomicSync } from './io/atomic-write.ts';
import { withFileLock } from './io/file-lock.ts';

export const MEMORY_TYPES = ['pattern', 'decision', 'fix', 'context'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

/**
 * One entry of `.ralph/agent/memories.md`. On disk (under the `## <Type>` section of its type):
 *
 *     ### mem-1763704800-a1b2
 *     > content, every line quoted
 *     <!-- tags: a, b | created: 2026-11-21T06:00:00.000Z -->
 */
export interface MemoryEntry {
  id: string;
  type: MemoryType;
  content: string;
  tags: string[];
  /** ISO 8601; hand-written entries may use a bare date or nothing. */
  created: string;
}

export interface NewMemory {
  content: string;
  /** Default `pattern`. */
  type?: string | undefined;
  /** An array, or one comma-separated string. */
  tags?: readonly string[] | string | undefined;
}

export interface MemorySearchFilter {
  type?: string | undefined;
  /** Entries carrying any of these tags. */
  tags?: readonly string[] | string | undefined;
}

export const SECTION_TITLES: Record<MemoryType, string> = {
  pattern: 'Patterns',
  decision: 'Decisions',
  fix: 'Fixes',
  context: 'Context',
};
const SKELETON = '# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n## Context\n';
// Headings of level 1–3 delimit sections and entries; deeper ones may be part of hand-written content.
const HEADING = /^(#{1,3})\s+(.*?)\s*$/;
const ENTRY_ID = /^(mem-[A-Za-z0-9_-]+)\b/;
const METADATA = /^<!--(.*)-->\s*$/;

interface Located extends MemoryEntry {
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
interface ParsedFile {
  lines: string[];
  entries: Located[];
  sections: Section[];
}

/** `pattern`, `Patterns`, `fixes`, … → the type; undefined for anything else. */
function matchType(value: string): MemoryType | undefined {
  const v = value.trim().toLowerCase();
  return MEMORY_TYPES.find((t) => t === v || `${t}s` === v || SECTION_TITLES[t].toLowerCase() === v);
}

export function parseMemoryType(value: string): MemoryType {
  const type = matchType(value);
  if (!type) {
    throw new RalphError(
      'memory_invalid',
      `unknown memory type "${value}"; use one of ${MEMORY_TYPES.join(', ')}`,
    );
  }
  return type;
}

/** CRLF → LF and no leading or trailing whitespace: the form content is stored and read back in. */
export function normalizeMemoryContent(content: string): string {
  return content.replace(/\r\n?/g, '\n').trim();
}

/** Lower-case, trimmed, inner spaces as `-`, no characters that would break the metadata line. */
export function normalizeTags(tags: readonly string[] | string | undefined): string[] {
  const list = typeof tags === 'string' ? [tags] : (tags ?? []);
  const out = list
    .flatMap((t) => t.split(','))
    .map((t) => t.trim().toLowerCase().replace(/\s+/g, '-').replace(/[|<>]/g, ''))
    .filter((t) => t !== '');
  return [...new Set(out)];
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
function parseFile(text: string): ParsedFile {
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
          const type = matchType(title);
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
  return parseFile(text).entries.map(({ start: _s, end: _e, ...entry }) => entry);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RalphError('memories_unreadable', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The memories in `path` in file order; a missing file has none. */
export function readMemories(path: string): MemoryEntry[] {
  const text = readText(path);
  return text === undefined ? [] : parseMemories(text);
}

/** The lines of one entry as stored (and as shown to the agent). */
export function renderMemoryEntry(entry: MemoryEntry): string[] {
  const body = entry.content.split('\n').map((l) => (l === '' ? '>' : `> ${l}`));
  const meta =
    entry.tags.length > 0
      ? `<!-- tags: ${entry.tags.join(', ')} | created: ${entry.created} -->`
      : `<!-- created: ${entry.created} -->`;
  return [`### ${entry.id}`, ...body, meta];
}

function insertEntry(parsed: ParsedFile, entry: MemoryEntry): string[] {
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

function newId(existing: ReadonlySet<string>, now: Date): string {
  for (;;) {
    const id = `mem-${Math.floor(now.getTime() / 1000)}-${randomBytes(2).toString('hex')}`;
    if (!existing.has(id)) return id;
  }
}

/** Adds an entry at the end of its type's section (created if missing); other text is kept as is. */
export function addMemory(path: string, input: NewMemory, options: { now?: () => Date } = {}): MemoryEntry {
  const type = parseMemoryType(input.type ?? 'pattern');
  const content = normalizeMemoryContent(input.content);
  if (!content) throw new RalphError('memory_invalid', 'a memory needs non-empty content');
  const tags = normalizeTags(input.tags);
  return writeEntry(path, (ids) => {
    const now = options.now?.() ?? new Date();
    return { id: newId(ids, now), type, content, tags, created: now.toISOString() };
  });
}

/** Stores an existing entry as it is (id, type, tags, created), e.g. one promoted from a project. */
export function insertMemory(path: string, entry: MemoryEntry): MemoryEntry {
  return writeEntry(path, (ids) => {
    if (ids.has(entry.id))
      throw new RalphError('memory_duplicate', `${path} already holds a memory "${entry.id}"`);
    return entry;
  });
}

/** Under the file's lock: the entry `make` returns (given the ids in use) written into its section. */
function writeEntry(path: string, make: (ids: ReadonlySet<string>) => MemoryEntry): MemoryEntry {
  return withFileLock(path, () => {
    const text = readText(path);
    const parsed = parseFile(text === undefined || text.trim() === '' ? SKELETON : text);
    const entry = make(new Set(parsed.entries.map((e) => e.id)));
    writeFileAtomicSync(path, `${insertEntry(parsed, entry).join('\n')}\n`);
    return entry;
  });
}

/** Removes one entry (only ever on an explicit request); returns it. */
export function deleteMemory(path: string, id: string): MemoryEntry {
  return withFileLock(path, () => {
    const parsed = parseFile(readText(path) ?? '');
    const found = parsed.entries.find((e) => e.id === id);
    if (!found) {
      throw new RalphError(
        'memory_not_found',
        `no memory "${id}" in ${path}; find the ids with \`ralph tools memory list\``,
      );
    }
    const lines = [...parsed.lines];
    lines.splice(found.start, found.end - found.start + 1);
    // Collapse the blank lines that met where the entry was.
    let at = found.start;
    while (at > 0 && lines[at - 1]!.trim() === '' && (at === lines.length || lines[at]!.trim() === '')) {
      lines.splice(at - 1, 1);
      at--;
    }
    writeFileAtomicSync(path, lines.length > 0 ? `${lines.join('\n')}\n` : '');
    const { start: _s, end: _e, ...entry } = found;
    return entry;
  });
}
