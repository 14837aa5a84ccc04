import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMemory, deleteMemory, readMemories } from '../../../../src/state/memories/memories-file.ts';
import { parseMemories } from '../../../../src/state/memories/memories-text.ts';
import {
  MEMORY_TYPES,
  type MemoryEntry,
  normalizeMemoryContent,
  normalizeTags,
} from '../../../../src/state/memories/memory.ts';
import {
  newestFirst,
  primeMemories,
  renderMemoriesForPrompt,
  searchMemories,
} from '../../../../src/state/memories/memory-prompt.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

const memoriesFile = (text?: string) => {
  const file = join(makeWorkspace(), '.ralph', 'agent', 'memories.md');
  if (text !== undefined) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return file;
};
let tick = 0;
const clock = () => new Date(Date.UTC(2026, 10, 21, 6, 0, tick++));

// The format ralph-orchestrator writes, edited by hand: a preamble, an unknown section, a comment,
// an entry with no metadata, unquoted content, a singular section name and CRLF lines.
const HAND_WRITTEN = [
  '# Memories',
  '',
  'Notes for the agent; keep this line.',
  '',
  '## Patterns',
  '',
  '### mem-1737372000-a1b2',
  '> This codebase uses barrel exports.',
  '> Each directory has an index.ts.',
  '<!-- tags: imports, structure | created: 2025-01-20 -->',
  '',
  '### mem-1737372100-c3d4',
  'Always run the tests first.',
  '',
  '## Team notes',
  '',
  'Free text that is not a memory.',
  '<!-- a plain comment -->',
  '',
  '## Fix',
  '',
  '### mem-1737390000-g7h8\r',
  '> ECONNREFUSED on 5432: run `docker compose up -d`\r',
  '<!-- tags: Docker, DB | created: 2025-01-21T10:00:00Z -->\r',
  '',
].join('\n');

describe('parseMemories', () => {
  it('reads hand-written files leniently', () => {
    expect(parseMemories(HAND_WRITTEN)).toEqual([
      {
        id: 'mem-1737372000-a1b2',
        type: 'pattern',
        content: 'This codebase uses barrel exports.\nEach directory has an index.ts.',
        tags: ['imports', 'structure'],
        created: '2025-01-20',
      },
      {
        id: 'mem-1737372100-c3d4',
        type: 'pattern',
        content: 'Always run the tests first.',
        tags: [],
        created: '',
      },
      {
        id: 'mem-1737390000-g7h8',
        type: 'fix',
        content: 'ECONNREFUSED on 5432: run `docker compose up -d`',
        tags: ['docker', 'db'],
        created: '2025-01-21T10:00:00Z',
      },
    ]);
  });

  it('reads a missing file, an empty file and prose as no memories', () => {
    expect(readMemories(memoriesFile())).toEqual([]);
    expect(parseMemories('')).toEqual([]);
    expect(parseMemories('# Memories\n\njust some text\n### not an entry\n')).toEqual([]);
  });

  it('property: never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        parseMemories(text);
      }),
    );
  });
});

describe('addMemory / deleteMemory', () => {
  it('creates the file with every section and the entry under its type', () => {
    const file = memoriesFile();
    const entry = addMemory(
      file,
      {
        content: '  Chose JSONL for events:\n\n  append-only.  ',
        type: 'decision',
        tags: 'Storage, arch , storage',
      },
      { now: clock },
    );
    expect(entry).toMatchObject({
      type: 'decision',
      content: 'Chose JSONL for events:\n\n  append-only.',
      tags: ['storage', 'arch'],
    });
    expect(entry.id).toMatch(/^mem-\d+-[0-9a-f]{4}$/);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(
      [
        '# Memories',
        '',
        '## Patterns',
        '',
        '## Decisions',
        '',
        `### ${entry.id}`,
        '> Chose JSONL for events:',
        '>',
        '>   append-only.',
        `<!-- tags: storage, arch | created: ${entry.created} -->`,
        '',
        '## Fixes',
        '',
        '## Context',
        '',
      ].join('\n'),
    );
    expect(readMemories(file)).toEqual([entry]);
  });

  it('defaults to a pattern, and rejects empty content and unknown types', () => {
    const file = memoriesFile();
    expect(addMemory(file, { content: 'x' }).type).toBe('pattern');
    expect(addMemory(file, { content: 'y', type: 'Fixes' }).type).toBe('fix');
    expect(() => addMemory(file, { content: ' \n ' })).toThrow(/non-empty content/);
    expect(() => addMemory(file, { content: 'z', type: 'idea' })).toThrow(
      'unknown memory type "idea"; use one of pattern, decision, fix, context',
    );
  });

  it('keeps hand-written text when adding and deleting', () => {
    const file = memoriesFile(HAND_WRITTEN);
    const before = parseMemories(HAND_WRITTEN);
    const fix = addMemory(file, { content: 'new fix', type: 'fix' }, { now: clock });
    const context = addMemory(file, { content: 'new context', type: 'context', tags: ['x'] }, { now: clock });
    const pattern = addMemory(file, { content: 'new pattern' }, { now: clock });
    const text = readFileSync(file, 'utf8');
    // Every original line is still there, in order.
    const lines = text.split('\n');
    let at = 0;
    for (const line of HAND_WRITTEN.split('\n')) {
      at = lines.indexOf(line, at);
      expect(at, line).toBeGreaterThanOrEqual(0);
      at++;
    }
    expect(text).toContain('## Context'); // created, since the file had none
    const entries = readMemories(file);
    expect(entries).toEqual([before[0], before[1], pattern, before[2], fix, context]);
    // The pattern went into the Patterns section, before the unknown section.
    expect(text.indexOf(pattern.id)).toBeLessThan(text.indexOf('## Team notes'));

    deleteMemory(file, before[1]!.id);
    deleteMemory(file, fix.id);
    const after = readFileSync(file, 'utf8');
    expect(readMemories(file)).toEqual([before[0], pattern, before[2], context]);
    expect(after).toContain('Notes for the agent; keep this line.');
    expect(after).toContain('Free text that is not a memory.\n<!-- a plain comment -->');
    expect(after).not.toContain('Always run the tests first.');
    expect(after).not.toMatch(/\n\n\n/);
    expect(() => deleteMemory(file, 'mem-404')).toThrow(/no memory "mem-404".*ralph tools memory list/);
  });

  it('creates a missing section in the canonical order', () => {
    const file = memoriesFile(
      '# Memories\n\n## Context\n\n### mem-1-aaaa\n> c\n<!-- created: 2026-01-01 -->\n',
    );
    const d = addMemory(file, { content: 'decided', type: 'decision' });
    const text = readFileSync(file, 'utf8');
    expect(text.indexOf('## Decisions')).toBeLessThan(text.indexOf('## Context'));
    expect(readMemories(file).map((e) => e.id)).toEqual([d.id, 'mem-1-aaaa']);
  });

  it('property: adding to any hand-edited file keeps its lines and its entries', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '# Memories',
        '## Patterns',
        '## Decisions',
        '## Fixes',
        '## Context',
        '## Other',
        '### mem-1-a',
        '### mem-2-b',
        '### heading',
        '#### deeper',
        '> quoted',
        '>',
        '<!-- tags: x, y | created: 2026-01-01 -->',
        '<!-- note -->',
        '',
        'prose\r',
      ),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), fc.constantFrom(...MEMORY_TYPES), (lines, type) => {
        const original = lines.join('\n');
        const file = memoriesFile(original);
        const before = parseMemories(original);
        const added = addMemory(file, { content: 'added', type });
        const text = readFileSync(file, 'utf8');
        const after = parseMemories(text);
        expect(after.filter((m) => m !== after.find((x) => x.id === added.id))).toEqual(before);
        expect(after.find((m) => m.id === added.id)).toEqual(added);
        if (original.trim() !== '') {
          const newLines = text.split('\n');
          let at = 0;
          const kept = original.split('\n');
          while (kept.at(-1)?.trim() === '') kept.pop(); // trailing blank lines may be tidied away
          for (const l of kept) {
            at = newLines.indexOf(l, at);
            expect(at, l).toBeGreaterThanOrEqual(0);
            at++;
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('property: entries round-trip through the file', () => {
    const content = fc
      .array(
        fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.string({ unit: 'binary', maxLength: 20 }),
          fc.constantFrom('### mem-1-x', '<!-- tags: a -->', '## Fixes', '>', '', ' \r', '-->'),
        ),
        { maxLength: 4 },
      )
      .map((ls) => ls.join('\n'))
      .filter((c) => normalizeMemoryContent(c) !== '');
    const input = fc.record({
      content,
      type: fc.constantFrom(...MEMORY_TYPES),
      tags: fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 8 })), {
        maxLength: 3,
      }),
    });
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 5 }), (inputs) => {
        const file = memoriesFile();
        const added = inputs.map((i) => addMemory(file, i));
        added.forEach((entry, k) => {
          expect(entry.content).toBe(normalizeMemoryContent(inputs[k]!.content));
          expect(entry.tags).toEqual(normalizeTags(inputs[k]!.tags));
        });
        const read = readMemories(file);
        expect(read).toHaveLength(added.length);
        for (const entry of added) expect(read.find((e) => e.id === entry.id)).toEqual(entry);
      }),
      { numRuns: 60 },
    );
  });
});

describe('searchMemories', () => {
  const e = (id: string, type: MemoryEntry['type'], content: string, tags: string[], created: string) => ({
    id,
    type,
    content,
    tags,
    created,
  });
  const entries: MemoryEntry[] = [
    e('mem-1', 'fix', 'ECONNREFUSED means Postgres is down', ['docker', 'db'], '2026-01-01T00:00:00Z'),
    e('mem-2', 'pattern', 'Barrel exports everywhere', ['structure'], '2026-01-03T00:00:00Z'),
    e('mem-3', 'fix', 'Flaky test: raise the timeout', ['tests'], '2026-01-02T00:00:00Z'),
  ];

  it('matches every word in content, tags or id, case-insensitively, newest first', () => {
    expect(searchMemories(entries, 'postgres DOWN').map((m) => m.id)).toEqual(['mem-1']);
    expect(searchMemories(entries, 'docker').map((m) => m.id)).toEqual(['mem-1']);
    expect(searchMemories(entries, '').map((m) => m.id)).toEqual(['mem-2', 'mem-3', 'mem-1']);
    expect(searchMemories(entries, 'postgres timeout')).toEqual([]);
  });

  it('filters by type and by any of the tags', () => {
    expect(searchMemories(entries, '', { type: 'fix' }).map((m) => m.id)).toEqual(['mem-3', 'mem-1']);
    expect(searchMemories(entries, '', { tags: 'tests,structure' }).map((m) => m.id)).toEqual([
      'mem-2',
      'mem-3',
    ]);
    expect(searchMemories(entries, 'raise', { type: 'pattern' })).toEqual([]);
    expect(() => searchMemories(entries, '', { type: 'nope' })).toThrow(/unknown memory type/);
  });
});

describe('renderMemoriesForPrompt', () => {
  it('is empty without memories and groups by type, newest first', () => {
    expect(renderMemoriesForPrompt([], 0)).toBe('');
    const entries: MemoryEntry[] = [
      { id: 'mem-a', type: 'fix', content: 'old fix', tags: [], created: '2026-01-01T00:00:00Z' },
      { id: 'mem-b', type: 'pattern', content: 'a pattern', tags: ['t'], created: '2026-01-02T00:00:00Z' },
      { id: 'mem-c', type: 'fix', content: 'new fix', tags: [], created: '2026-01-03T00:00:00Z' },
    ];
    const text = renderMemoriesForPrompt(entries, 0);
    expect(text).toBe(
      [
        '# Memories',
        '',
        '## Patterns',
        '',
        '### mem-b',
        '> a pattern',
        '<!-- tags: t | created: 2026-01-02T00:00:00Z -->',
        '',
        '## Fixes',
        '',
        '### mem-c',
        '> new fix',
        '<!-- created: 2026-01-03T00:00:00Z -->',
        '',
        '### mem-a',
        '> old fix',
        '<!-- created: 2026-01-01T00:00:00Z -->',
        '',
      ].join('\n'),
    );
    expect(primeMemories(entries, 0)).toBe(text);
    // A budget that fits only the newest entry drops the older ones.
    const newest = renderMemoriesForPrompt([entries[2]!], 0);
    expect(renderMemoriesForPrompt(entries, Math.ceil(newest.length / 4))).toBe(newest);
    expect(renderMemoriesForPrompt(entries, 1)).toBe('');
  });

  it("puts the user's memories after the project's, in what the project's leave of the budget", () => {
    const project: MemoryEntry[] = [
      { id: 'mem-p', type: 'fix', content: 'project fix', tags: [], created: '2026-01-01T00:00:00Z' },
    ];
    const user: MemoryEntry[] = [
      { id: 'mem-u1', type: 'pattern', content: 'user old', tags: [], created: '2026-01-01T00:00:00Z' },
      { id: 'mem-u2', type: 'pattern', content: 'user new', tags: [], created: '2026-01-05T00:00:00Z' },
    ];
    const own = renderMemoriesForPrompt(project, 0);
    const both = renderMemoriesForPrompt(project, 0, user);
    expect(both.startsWith(`${own}\n# Memories across projects\n\n## Patterns\n\n### mem-u2`)).toBe(true);
    expect(primeMemories(project, 0, user)).toBe(both);
    // Only the newest user memory fits next to the project's: the older one is left out.
    const newestUser = renderMemoriesForPrompt([], 0, [user[1]!]);
    const tight = renderMemoriesForPrompt(project, (own.length + 1 + newestUser.length) / 4, user);
    expect(tight).toBe(`${own}\n${newestUser}`);
    // A budget the project's memories fill leaves none for the user's.
    expect(renderMemoriesForPrompt(project, Math.ceil(own.length / 4), user)).toBe(own);
  });

  const entryList = fc.uniqueArray(fc.integer({ min: 0, max: 999 }), { maxLength: 12 }).chain((ids) =>
    fc.tuple(
      ...ids.map((n) =>
        fc.record({
          id: fc.constant(`mem-${n}`),
          type: fc.constantFrom(...MEMORY_TYPES),
          content: fc.string({ minLength: 1, maxLength: 120 }).map(normalizeMemoryContent).filter(Boolean),
          tags: fc.array(fc.constantFrom('a', 'b', 'ccc'), { maxLength: 2 }).map(normalizeTags),
          created: fc.oneof(
            fc
              .integer({ min: 0, max: 1e4 })
              .map((s) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString()),
            fc.constant(''),
          ),
        }),
      ),
    ),
  );

  it('property: never exceeds the budget, keeps a newest-first prefix, and as much of it as fits', () => {
    fc.assert(
      fc.property(entryList, fc.integer({ min: 1, max: 400 }), (entries: MemoryEntry[], budget) => {
        const text = renderMemoriesForPrompt(entries, budget);
        expect(text.length).toBeLessThanOrEqual(budget * 4);
        const kept = parseMemories(text).map((m) => m.id);
        const order = newestFirst(entries);
        const prefix = order.slice(0, kept.length);
        expect(new Set(kept)).toEqual(new Set(prefix.map((m) => m.id)));
        if (kept.length < order.length) {
          expect(renderMemoriesForPrompt(order.slice(0, kept.length + 1), 0).length).toBeGreaterThan(
            budget * 4,
          );
        }
        // Nothing is lost in the rendering of what was kept.
        for (const m of parseMemories(text)) expect(m).toEqual(entries.find((x) => x.id === m.id));
      }),
    );
  });
});
