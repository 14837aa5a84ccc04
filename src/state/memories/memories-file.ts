import { randomBytes } from 'node:crypto';
import { RalphError } from '../../errors.ts';
import { writeFileAtomicSync } from '../io/atomic-write.ts';
import { withFileLock } from '../io/file-lock.ts';
import { readTextCached } from '../io/stat-cache.ts';
import { insertMemoryEntry, parseMemories, parseMemoriesFile } from './memories-text.ts';
import {
  type MemoryEntry,
  type NewMemory,
  normalizeMemoryContent,
  normalizeTags,
  parseMemoryType,
} from './memory.ts';

/** What an empty or missing file starts as: every section, in the canonical order. */
const SKELETON = '# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n## Context\n';

/** The file's text (read again only once it changed), or undefined when it is missing. */
function readText(path: string): string | undefined {
  try {
    const read = readTextCached(path);
    return 'text' in read ? read.text : undefined;
  } catch (error) {
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
    const parsed = parseMemoriesFile(text === undefined || text.trim() === '' ? SKELETON : text);
    const entry = make(new Set(parsed.entries.map((e) => e.id)));
    writeFileAtomicSync(path, `${insertMemoryEntry(parsed, entry).join('\n')}\n`);
    return entry;
  });
}

/** Removes one entry (only ever on an explicit request); returns it. */
export function deleteMemory(path: string, id: string): MemoryEntry {
  return withFileLock(path, () => {
    const parsed = parseMemoriesFile(readText(path) ?? '');
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
