import {
  MEMORY_TYPES,
  type MemoryEntry,
  type MemorySearchFilter,
  normalizeTags,
  parseMemoryType,
  renderMemoryEntry,
  SECTION_TITLES,
} from './memory.ts';

// Which memories a search or a prompt gets, and how the prompt shows them.

function createdMs(entry: MemoryEntry): number {
  const ms = Date.parse(entry.created);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/** Newest first by `created`; ties (and undated entries) keep later-in-file first. */
export function newestFirst(entries: readonly MemoryEntry[]): MemoryEntry[] {
  return entries
    .map((entry, index) => ({ entry, index, ms: createdMs(entry) }))
    .sort((a, b) => (a.ms === b.ms ? b.index - a.index : b.ms > a.ms ? 1 : -1))
    .map((x) => x.entry);
}

/**
 * Entries whose content, tags or id contain every word of `query` (case-insensitive; an empty
 * query matches all), of `type` and carrying any of `tags` when given; newest first.
 */
export function searchMemories(
  entries: readonly MemoryEntry[],
  query: string,
  filter: MemorySearchFilter = {},
): MemoryEntry[] {
  const type = filter.type === undefined ? undefined : parseMemoryType(filter.type);
  const tags = normalizeTags(filter.tags);
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return newestFirst(entries).filter((e) => {
    if (type && e.type !== type) return false;
    if (tags.length > 0 && !tags.some((t) => e.tags.includes(t))) return false;
    const haystack = `${e.content}\n${e.tags.join(' ')}\n${e.id}`.toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

function renderGrouped(entries: readonly MemoryEntry[], title: string): string {
  const parts = [title];
  for (const type of MEMORY_TYPES) {
    const group = entries.filter((e) => e.type === type);
    if (group.length === 0) continue;
    parts.push(`## ${SECTION_TITLES[type]}`);
    for (const entry of group) parts.push(renderMemoryEntry(entry).join('\n'));
  }
  return `${parts.join('\n\n')}\n`;
}

/** The heading of the user's memories (`scope: user`) in a prompt, after the project's. */
export const USER_MEMORIES_TITLE = '# Memories across projects';

/** The newest entries whose rendering fits in `limit` characters, grouped by type; '' when none fit. */
function fitNewest(entries: readonly MemoryEntry[], limit: number, title: string): string {
  if (entries.length === 0 || limit <= 0) return '';
  const sorted = newestFirst(entries);
  // The rendering only grows as more entries are kept, so binary-search the longest prefix that fits.
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (renderGrouped(sorted.slice(0, mid), title).length <= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '' : renderGrouped(sorted.slice(0, lo), title);
}

/**
 * The memories to put in a prompt, within `budgetTokens * 4` characters (0 = no limit): the
 * project's newest entries first, then the user's (`scope: user`, under their own heading) in
 * what the project's left; each grouped by type and newest first within a group; '' when none fit.
 */
export function renderMemoriesForPrompt(
  entries: readonly MemoryEntry[],
  budgetTokens: number,
  userEntries: readonly MemoryEntry[] = [],
): string {
  const limit = budgetTokens > 0 ? budgetTokens * 4 : Number.POSITIVE_INFINITY;
  const project = fitNewest(entries, limit, '# Memories');
  // The blank line between the two blocks counts against the budget too.
  const user = fitNewest(userEntries, limit - project.length - (project ? 1 : 0), USER_MEMORIES_TITLE);
  return project && user ? `${project}\n${user}` : project || user;
}

/** `ralph tools memory prime`: the same text the loop injects into the prompt. */
export function primeMemories(
  entries: readonly MemoryEntry[],
  budgetTokens: number,
  userEntries: readonly MemoryEntry[] = [],
): string {
  return renderMemoriesForPrompt(entries, budgetTokens, userEntries);
}
