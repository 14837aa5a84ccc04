import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRalphrc, parseTomlScalars } from '../../../../src/config/migrate/peer-files.ts';
import {
  describeLine,
  detectPeer,
  fromFrankbria,
  fromRalphTui,
  fromSnarktank,
  migratePeer,
  PEERS,
} from '../../../../src/config/migrate/peer-mappings.ts';

const files = (entries: Record<string, string>) => new Map(Object.entries(entries));
const settings = (m: { settings: Array<[string, unknown]> }) => Object.fromEntries(m.settings);

describe('parseRalphrc', () => {
  it('reads assignments, quotes and ${NAME:-default}, never anything else', () => {
    const rc = parseRalphrc(
      [
        '# comment',
        'PROJECT_NAME="${PROJECT_NAME:-shop}"',
        "ALLOWED_TOOLS='Write,Read'",
        'export CLAUDE_TIMEOUT_MINUTES=15 # minutes',
        'echo hi; rm -rf /',
        'if [ -z "$X" ]; then X=1; fi',
      ].join('\n'),
    );
    expect([...rc]).toEqual([
      ['PROJECT_NAME', 'shop'],
      ['ALLOWED_TOOLS', 'Write,Read'],
      ['CLAUDE_TIMEOUT_MINUTES', '15'],
    ]);
  });

  it('property: any text parses without throwing; a plain assignment reads back its value', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.stringMatching(/^[A-Z_]{1,8}$/),
        fc.stringMatching(/^[a-z0-9,.]{0,12}$/),
        (noise, key, value) => {
          parseRalphrc(noise);
          expect(parseRalphrc(`${noise.replace(/[\r\n]/g, ' ')}\n${key}="${value}"\n`).get(key)).toBe(value);
        },
      ),
    );
  });
});

describe('parseTomlScalars', () => {
  it('reads top-level and table scalars, skips lists of tables and arrays', () => {
    const toml = parseTomlScalars(
      'tracker = "json"\nmaxIterations = 10\nautoCommit = true\nlist = ["a"]\n[trackerOptions]\npath = \'./prd.json\'\n[[agents]]\nname = "x"\n',
    );
    expect([...toml]).toEqual([
      ['tracker', 'json'],
      ['maxIterations', 10],
      ['autoCommit', true],
      ['trackerOptions.path', './prd.json'],
    ]);
  });
});

describe('the mappings', () => {
  it('snarktank: the promise is COMPLETE, prd.json the source, in scripts/ralph/ when there', () => {
    expect(settings(fromSnarktank(files({ 'prompt.md': '', 'prd.json': '{}' })))).toEqual({
      'event_loop.prompt_file': 'prompt.md',
      'tasks.source': 'prd.json',
      'event_loop.completion_promise': 'COMPLETE',
    });
    expect(
      settings(fromSnarktank(files({ 'scripts/ralph/prompt.md': '', 'scripts/ralph/prd.json': '{}' }))),
    ).toMatchObject({
      'event_loop.prompt_file': 'scripts/ralph/prompt.md',
      'tasks.prd': 'scripts/ralph/prd.json',
    });
  });

  it('frankbria: PROMPT_FILE and FIX_PLAN_FILE of .ralphrc are relative to .ralph/', () => {
    const m = fromFrankbria(
      files({
        '.ralphrc': 'PROMPT_FILE="GOALS.md"\nFIX_PLAN_FILE="@fix_plan.md"\n',
        '.ralph/GOALS.md': '',
        '.ralph/@fix_plan.md': '',
      }),
    );
    expect(settings(m)).toMatchObject({
      'event_loop.prompt_file': '.ralph/GOALS.md',
      'completion.checklist': '.ralph/@fix_plan.md',
    });
  });

  it('ralph-tui: an agent Ralph does not drive does not map', () => {
    const m = fromRalphTui(files({ '.ralph-tui/config.toml': 'agent = "droid"\n' }));
    expect(m.lines.map(describeLine)).toContain(
      'does not map: .ralph-tui/config.toml agent = "droid" — not a Ralph backend: set cli.backend: custom and cli.command',
    );
  });

  it('property: every setting has a report line; mappings never throw on any file contents', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PEERS),
        fc.dictionary(
          fc.constantFrom(
            'prd.json',
            'prompt.md',
            '.ralphrc',
            '.ralph-tui/config.toml',
            '.ralph/PROMPT.md',
            'ralph.yml',
          ),
          fc.string(),
        ),
        (peer, entries) => {
          const m = migratePeer(peer, files(entries));
          const mapped = m.lines.filter((l) => 'to' in l).length;
          expect(mapped).toBeGreaterThanOrEqual(m.settings.length);
          for (const line of m.lines) expect(describeLine(line)).not.toContain('\n');
        },
      ),
    );
  });

  it('detectPeer: by the telltale files', () => {
    expect(detectPeer(files({ '.ralph-tui/config.toml': '' }))).toBe('ralph-tui');
    expect(detectPeer(files({ '.ralph/PROMPT.md': '' }))).toBe('frankbria');
    expect(detectPeer(files({ 'prd.json': '{"userStories": []}' }))).toBe('snarktank');
    expect(detectPeer(files({ 'prd.json': '{"other": 1}' }))).toBeUndefined();
    expect(detectPeer(files({}))).toBeUndefined();
  });
});
