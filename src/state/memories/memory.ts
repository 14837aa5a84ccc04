import { RalphError } from '../../errors.ts';

/** The kinds of memory, one section of the memories file each. */
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

/** `pattern`, `Patterns`, `fixes`, … → the type; undefined for anything else. */
export function matchMemoryType(value: string): MemoryType | undefined {
  const v = value.trim().toLowerCase();
  return MEMORY_TYPES.find((t) => t === v || `${t}s` === v || SECTION_TITLES[t].toLowerCase() === v);
}

export function parseMemoryType(value: string): MemoryType {
  const type = matchMemoryType(value);
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

/** The lines of one entry as stored (and as shown to the agent). */
export function renderMemoryEntry(entry: MemoryEntry): string[] {
  const body = entry.content.split('\n').map((l) => (l === '' ? '>' : `> ${l}`));
  const meta =
    entry.tags.length > 0
      ? `<!-- tags: ${entry.tags.join(', ')} | created: ${entry.created} -->`
      : `<!-- created: ${entry.created} -->`;
  return [`### ${entry.id}`, ...body, meta];
}
