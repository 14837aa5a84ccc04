import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from '@commander-js/extra-typings';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { registerHatsCommand } from '../../../src/cli/config/commands.ts';
import type { CliIO } from '../../../src/cli/io.ts';
import { hatConfigIssues, hatConfigWarnings } from '../../../src/config/hat-checks.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { configSchema, type RalphConfigInput } from '../../../src/config/schema.ts';
import { patternsOverlap, triggerSpecificity } from '../../../src/config/topic-match.ts';
import { ConfigError, formatConfigIssue } from '../../../src/errors.ts';
import { removeWhenDone } from '../../helpers/workspace.ts';

const seedDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/seed-000');

const issues = (input: RalphConfigInput) => hatConfigIssues(configSchema.parse(input));

let dir: string;
beforeEach(() => {
  dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-hats-')));
});

function writeConfig(text: string): string {
  const file = join(dir, 'ralph.yml');
  writeFileSync(file, text);
  return file;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('hatConfigIssues', () => {
  it('seed 000 ralph.yml has no issues (task.resume is a valid trigger)', () => {
    const { config } = loadConfig({ file: join(seedDir, 'ralph.yml'), cwd: seedDir });
    expect(hatConfigIssues(config)).toEqual([]);
  });

  it('no hats: no issues, even with a starting_event', () => {
    expect(issues({ event_loop: { starting_event: 'anything' } })).toEqual([]);
  });

  it('the same trigger in two hats points at the later hat and names the other', () => {
    const found = issues({
      hats: {
        writer: { triggers: ['work.propose'] },
        finisher: { triggers: ['work.finish', 'work.propose'] },
      },
    });
    expect(found).toEqual([
      {
        path: ['hats', 'finisher', 'triggers', 1],
        message: expect.stringMatching(/"work\.propose".*hat "writer"/),
      },
    ]);
  });

  it('overlapping patterns of equal specificity are ambiguous', () => {
    const found = issues({ hats: { a: { triggers: ['a.*.c'] }, b: { triggers: ['x', 'a.b.*'] } } });
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toEqual(['hats', 'b', 'triggers', 1]);
    expect(found[0]!.message).toContain('"a.b.c"');
    expect(found[0]!.message).toContain('hat "a"');
    expect(issues({ hats: { a: { triggers: ['*'] }, b: { triggers: ['*'] } } })).toHaveLength(1);
  });

  it('an exact trigger next to a pattern, or a pattern next to the catch-all, is fine: the more specific wins', () => {
    expect(
      issues({
        hats: {
          fallback: { triggers: ['*'] },
          work: { triggers: ['work.*'] },
          done: { triggers: ['work.done'] },
        },
      }),
    ).toEqual([]);
  });

  it('a hat without triggers is a warning, not an error (ralph-orchestrator loads it)', () => {
    const config = configSchema.parse({ hats: { idle: { name: 'Idle' } } });
    expect(issues({ hats: { idle: { name: 'Idle' } } })).toEqual([]);
    expect(hatConfigWarnings(config)).toEqual([
      { path: ['hats', 'idle', 'triggers'], message: expect.stringContaining('no triggers') },
    ]);
  });

  it('default_publishes must be one of publishes (when publishes is set)', () => {
    expect(
      issues({ hats: { a: { triggers: ['x'], publishes: ['done'], default_publishes: 'dnoe' } } }),
    ).toEqual([{ path: ['hats', 'a', 'default_publishes'], message: expect.stringContaining('"dnoe"') }]);
    expect(
      issues({
        hats: { a: { triggers: ['x'], publishes: ['done', 'y'], default_publishes: ['done', 'z'] } },
      }),
    ).toEqual([{ path: ['hats', 'a', 'default_publishes', 1], message: expect.stringContaining('"z"') }]);
    expect(issues({ hats: { a: { triggers: ['x'], default_publishes: 'anything' } } })).toEqual([]);
  });

  it('starting_event must trigger some hat (a pattern counts)', () => {
    const hats = { scanner: { triggers: ['board.scan', 'board.*'] } };
    expect(issues({ event_loop: { starting_event: 'board.rescan' }, hats })).toEqual([]);
    const found = issues({
      event_loop: { starting_event: 'bord.scan' },
      hats: { s: { triggers: ['board.scan'] } },
    });
    expect(found).toEqual([
      {
        path: ['event_loop', 'starting_event'],
        message: expect.stringContaining('did you mean "board.scan"'),
      },
    ]);
  });

  it('property: an issue is reported between two hats exactly when routing would fall back to config order', () => {
    const trigger = fc.constantFrom('a', 'b', 'a.b', 'a.*', '*.b', 'a.b.c', 'a.*.c', '*.b.*', '*');
    fc.assert(
      fc.property(
        fc.uniqueArray(trigger, { maxLength: 3 }),
        fc.uniqueArray(trigger, { maxLength: 3 }),
        (t1, t2) => {
          fc.pre(t1.length > 0 && t2.length > 0);
          const found = issues({ hats: { first: { triggers: t1 }, second: { triggers: t2 } } });
          const ambiguous = t2.filter((b) =>
            t1.some((a) => patternsOverlap(a, b) && triggerSpecificity(a) === triggerSpecificity(b)),
          );
          expect(found.map((i) => i.path)).toEqual(
            ambiguous.map((b) => ['hats', 'second', 'triggers', t2.indexOf(b)]),
          );
        },
      ),
    );
  });
});

describe('loadConfig runs the hat checks', () => {
  it('two hats with the same trigger: ralph.yml:L:C of the later trigger', () => {
    const file = writeConfig(
      [
        'hats:',
        '  proposal_writer:',
        '    triggers: [work.propose]',
        '  finisher:',
        '    triggers:',
        '      - work.finish',
        '      - work.propose',
        '',
      ].join('\n'),
    );
    const err = configError(() => loadConfig({ file, cwd: dir }));
    expect(err.issues).toHaveLength(1);
    const issue = err.issues[0]!;
    expect(issue).toMatchObject({ file: 'ralph.yml', line: 7, col: 9, path: 'hats.finisher.triggers.1' });
    expect(formatConfigIssue(issue)).toMatch(
      /^ralph\.yml:7:9: hats\.finisher\.triggers\.1: trigger "work\.propose" is also a trigger of hat "proposal_writer"/,
    );
  });

  it('issues are sorted by position, starting_event included', () => {
    const file = writeConfig(
      [
        'event_loop:',
        '  starting_event: nothing.here',
        'hats:',
        '  a:',
        '    triggers: [x]',
        '    publishes: [y]',
        '    default_publishes: z',
        '',
      ].join('\n'),
    );
    const err = configError(() => loadConfig({ file, cwd: dir }));
    expect(err.issues.map((i) => `${i.line}:${i.col} ${i.path}`)).toEqual([
      '2:19 event_loop.starting_event',
      '7:24 hats.a.default_publishes',
    ]);
  });

  it('a --set override that causes the problem is named instead of a line', () => {
    const file = writeConfig('hats:\n  a:\n    triggers: [x]\n');
    const err = configError(() =>
      loadConfig({
        file,
        cwd: dir,
        overrides: [
          { path: ['event_loop', 'starting_event'], value: 'y', source: '--set event_loop.starting_event=y' },
        ],
      }),
    );
    expect(err.issues[0]).toMatchObject({ file: '--set event_loop.starting_event=y', line: 0 });
  });
});

describe('ralph hats (in-process)', () => {
  async function run(args: string[], cwd: string) {
    let out = '';
    let code = -1;
    const io: CliIO = { out: (t) => (out += t), err: () => {}, cwd, env: {}, color: false };
    const program = new Command('ralph')
      .exitOverride()
      .configureOutput({ writeOut: io.out, writeErr: io.err });
    registerHatsCommand(program, io, (c) => (code = c));
    await program.parseAsync(args, { from: 'user' });
    return { out, code };
  }

  it('validate prints the hat count for seed 000', async () => {
    expect(await run(['hats', 'validate'], seedDir)).toEqual({ out: 'ralph.yml: 3 hats valid\n', code: 0 });
  });

  it('validate lets the ConfigError through (main.ts reports it as file:line:col)', async () => {
    writeConfig('hats:\n  a:\n    triggers: [x]\n  b:\n    triggers: [x]\n');
    await expect(run(['hats', 'validate', '-c', 'ralph.yml'], dir)).rejects.toThrow(/ralph\.yml:5:16: /);
  });

  it('graph prints text or mermaid', async () => {
    expect((await run(['hats', 'graph'], seedDir)).out).toContain('board_scanner (Board Scanner): ');
    const mermaid = await run(['hats', 'graph', '--format', 'mermaid'], seedDir);
    expect(mermaid.out.startsWith('graph LR\n')).toBe(true);
    await expect(run(['hats', 'graph', '--format', 'svg'], seedDir)).rejects.toThrow(/Allowed choices/);
  });
});
