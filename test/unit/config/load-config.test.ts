import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, parseConfigText } from '../../../src/config/load-config.ts';
import { applyOverrides, parseSetOverride } from '../../../src/config/overrides.ts';
import { ConfigError, formatConfigIssue, RalphError, UsageError } from '../../../src/errors.ts';
import { removeWhenDone } from '../../helpers/workspace.ts';

const here = dirname(fileURLToPath(import.meta.url));
const seedDir = resolve(here, '../../fixtures/seed-000');

let dir: string;
beforeEach(() => {
  dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-config-')));
});

function writeConfig(text: string): string {
  const file = join(dir, 'ralph.yml');
  writeFileSync(file, text);
  return file;
}

/** Runs `fn`, expecting a ConfigError, and returns it. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('loadConfig: defaults', () => {
  it('without a file, returns every default', () => {
    const { config, file } = loadConfig({ cwd: dir });
    expect(file).toBeUndefined();
    expect(config.event_loop.completion_promise).toBe('LOOP_COMPLETE');
    expect(config.event_loop.max_iterations).toBe(100);
    expect(config.event_loop.max_consecutive_failures).toBe(3);
    expect(config.event_loop.persistent).toBe(false);
    expect(config.cli.backend).toBe('auto');
    expect(config.hats).toEqual({});
    expect(config.memories.budget).toBe(2000);
  });

  it('an empty file is the defaults', () => {
    const file = writeConfig('');
    expect(loadConfig({ file, cwd: dir }).config).toEqual(loadConfig({ cwd: dir }).config);
  });

  it('a valid file fills the rest with defaults', () => {
    const file = writeConfig('event_loop:\n  max_iterations: 7\ncli:\n  backend: fake\n');
    const { config, file: loaded } = loadConfig({ file, cwd: dir });
    expect(loaded).toBe(file);
    expect(config.event_loop.max_iterations).toBe(7);
    expect(config.event_loop.max_runtime_seconds).toBe(14_400);
    expect(config.cli.backend).toBe('fake');
  });

  it('a missing file is a RalphError naming the file', () => {
    const missing = join(dir, 'nope.yml');
    expect(() => loadConfig({ file: missing, cwd: dir })).toThrow(RalphError);
    expect(() => loadConfig({ file: missing, cwd: dir })).toThrow(/nope\.yml/);
  });
});

describe('loadConfig: errors name file:line:col', () => {
  it('a misspelled key points at the key and suggests the right one', () => {
    const file = writeConfig('event_loop:\n  max_iteratons: 5\n');
    const err = configError(() => loadConfig({ file, cwd: dir }));
    expect(err.issues).toHaveLength(1);
    const issue = err.issues[0]!;
    expect(issue.file).toBe('ralph.yml');
    expect(issue.line).toBe(2);
    expect(issue.col).toBe(3);
    expect(issue.path).toBe('event_loop.max_iteratons');
    expect(issue.message).toContain('did you mean "max_iterations"');
    expect(err.message).toContain('ralph.yml:2:3');
    expect(err.exitCode).toBe(1);
  });

  it('a misspelled key inside a hat suggests the hat key', () => {
    const file = writeConfig('hats:\n  builder:\n    trigers: [a]\n    instructions: hi\n');
    const err = configError(() => loadConfig({ file, cwd: dir }));
    const issue = err.issues[0]!;
    expect(issue).toMatchObject({ line: 3, col: 5, path: 'hats.builder.trigers' });
    expect(issue.message).toContain('did you mean "triggers"');
  });

  it('a wrong type points at the value', () => {
    const file = writeConfig('event_loop:\n  max_iterations: "ten"\n');
    const err = configError(() => loadConfig({ file, cwd: dir }));
    const issue = err.issues[0]!;
    expect(issue.path).toBe('event_loop.max_iterations');
    expect(issue.line).toBe(2);
    expect(issue.col).toBe(19);
  });

  it('an invalid enum value points at the value', () => {
    const file = writeConfig('cli:\n  backend: claud\n');
    const issue = configError(() => loadConfig({ file, cwd: dir })).issues[0]!;
    expect(issue).toMatchObject({ path: 'cli.backend', line: 2, col: 12 });
  });

  it('a value inside a list points at the list item', () => {
    const file = writeConfig('hats:\n  a:\n    triggers:\n      - ok\n      - 5\n');
    const issue = configError(() => loadConfig({ file, cwd: dir })).issues[0]!;
    expect(issue).toMatchObject({ path: 'hats.a.triggers.1', line: 5, col: 9 });
  });

  it('a YAML syntax error has a line and column', () => {
    const file = writeConfig('event_loop:\n  max_iterations: 5\n   bad: [1, 2\n');
    const err = configError(() => loadConfig({ file, cwd: dir }));
    expect(err.issues.length).toBeGreaterThan(0);
    const issue = err.issues[0]!;
    expect(issue.file).toBe('ralph.yml');
    // The yaml library reports this at offset 30: the `[` after "bad: " is read as a nested compact map.
    expect(issue).toMatchObject({ line: 2, col: 19 });
    expect(err.message).toContain('ralph.yml:2:19');
  });

  it('an unclosed flow sequence is located on its line', () => {
    const err = configError(() => parseConfigText('a: 1\nb: [1, 2\n', 'x.yml'));
    const issue = err.issues[0]!;
    expect(issue.file).toBe('x.yml');
    expect(issue.line).toBeGreaterThanOrEqual(2);
    expect(issue.col).toBeGreaterThan(0);
  });

  it('a duplicate key is a syntax error on the second occurrence', () => {
    const err = configError(() =>
      parseConfigText('event_loop:\n  max_iterations: 1\n  max_iterations: 2\n', 'r.yml'),
    );
    expect(err.issues[0]).toMatchObject({ file: 'r.yml', line: 3, col: 3 });
    expect(err.issues[0]!.message).toContain('unique');
  });

  it('an unknown top-level section suggests the closest one', () => {
    const file = writeConfig('event_lop:\n  max_iterations: 5\n');
    const issue = configError(() => loadConfig({ file, cwd: dir })).issues[0]!;
    expect(issue).toMatchObject({ line: 1, col: 1, path: 'event_lop' });
    expect(issue.message).toContain('did you mean "event_loop"');
  });

  it('an unknown key far from any known key has no suggestion', () => {
    const file = writeConfig('zzzzzzzzzzzz: 1\n');
    const issue = configError(() => loadConfig({ file, cwd: dir })).issues[0]!;
    expect(issue.message).toContain('unknown key "zzzzzzzzzzzz"');
    expect(issue.message).not.toContain('did you mean');
  });

  it('reports every problem, not only the first', () => {
    const file = writeConfig('event_loop:\n  max_iteratons: 5\n  persistent: maybe\ncli:\n  backnd: fake\n');
    const err = configError(() => loadConfig({ file, cwd: dir }));
    const paths = err.issues.map((i) => i.path).sort();
    expect(paths).toEqual(['cli.backnd', 'event_loop.max_iteratons', 'event_loop.persistent']);
  });

  it('a file outside cwd is labelled by its path', () => {
    const other = mkdtempSync(join(tmpdir(), 'ralph-cwd-'));
    try {
      const file = writeConfig('event_loop:\n  max_iteratons: 5\n');
      const issue = configError(() => loadConfig({ file, cwd: other })).issues[0]!;
      expect(issue.file).toBe(file);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('parseConfigText', () => {
  it('returns the plain object and the label', () => {
    const doc = parseConfigText('event_loop:\n  max_iterations: 3\n', 'ralph.yml');
    expect(doc.raw).toEqual({ event_loop: { max_iterations: 3 } });
    expect(doc.label).toBe('ralph.yml');
  });

  it('an empty document is an empty mapping', () => {
    expect(parseConfigText('', 'x').raw).toEqual({});
    expect(parseConfigText('# only a comment\n', 'x').raw).toEqual({});
  });

  it.each([['- a\n- b\n'], ['just a string\n'], ['42\n']])(
    'a non-mapping document %j is rejected',
    (text) => {
      const err = configError(() => parseConfigText(text, 'x.yml'));
      expect(err.issues[0]).toMatchObject({ file: 'x.yml', line: 1, col: 1 });
      expect(err.issues[0]!.message).toContain('mapping');
    },
  );
});

describe('--set overrides', () => {
  it('parseSetOverride reads numbers, booleans, lists and strings from the text', () => {
    expect(parseSetOverride('event_loop.cooldown_delay_seconds=1')).toEqual({
      path: ['event_loop', 'cooldown_delay_seconds'],
      value: 1,
      source: '--set event_loop.cooldown_delay_seconds=1',
    });
    expect(parseSetOverride('event_loop.persistent=true').value).toBe(true);
    expect(parseSetOverride('event_loop.max_cost_usd=2.5').value).toBe(2.5);
    expect(parseSetOverride('cli.args=[--verbose, -x]').value).toEqual(['--verbose', '-x']);
    expect(parseSetOverride('cli.model=sonnet').value).toBe('sonnet');
    expect(parseSetOverride('cli.model=').value).toBe('');
    expect(parseSetOverride('cli.command=a=b').value).toBe('a=b');
  });

  it('parseSetOverride rejects malformed input with a UsageError', () => {
    expect(() => parseSetOverride('no-equals')).toThrow(UsageError);
    expect(() => parseSetOverride('=5')).toThrow(UsageError);
    expect(() => parseSetOverride('event_loop..x=5')).toThrow(UsageError);
  });

  it('applyOverrides applies in order, creates sections and does not mutate the input', () => {
    const raw = { event_loop: { max_iterations: 3 } };
    const out = applyOverrides(raw, [
      parseSetOverride('event_loop.max_iterations=4'),
      parseSetOverride('cli.backend=fake'),
      parseSetOverride('event_loop.max_iterations=5'),
    ]);
    expect(out).toEqual({ event_loop: { max_iterations: 5 }, cli: { backend: 'fake' } });
    expect(raw).toEqual({ event_loop: { max_iterations: 3 } });
  });

  it('applyOverrides refuses to descend into a value', () => {
    expect(() => applyOverrides({ cli: { backend: 'fake' } }, [parseSetOverride('cli.backend.x=1')])).toThrow(
      UsageError,
    );
  });

  it('overrides apply on top of the file', () => {
    const file = writeConfig('event_loop:\n  cooldown_delay_seconds: 30\n  persistent: false\n');
    const { config } = loadConfig({
      file,
      cwd: dir,
      overrides: [
        parseSetOverride('event_loop.cooldown_delay_seconds=1'),
        parseSetOverride('event_loop.persistent=true'),
      ],
    });
    expect(config.event_loop.cooldown_delay_seconds).toBe(1);
    expect(config.event_loop.persistent).toBe(true);
  });

  it('overrides apply without a file', () => {
    const { config } = loadConfig({ cwd: dir, overrides: [parseSetOverride('event_loop.max_iterations=9')] });
    expect(config.event_loop.max_iterations).toBe(9);
  });

  it('an invalid --set value is reported against the --set flag', () => {
    const file = writeConfig('event_loop:\n  max_iterations: 5\n');
    const err = configError(() =>
      loadConfig({ file, cwd: dir, overrides: [parseSetOverride('event_loop.max_iterations=ten')] }),
    );
    const issue = err.issues[0]!;
    expect(issue.file.startsWith('--set')).toBe(true);
    expect(issue.file).toBe('--set event_loop.max_iterations=ten');
    expect(issue.path).toBe('event_loop.max_iterations');
    expect(formatConfigIssue(issue)).toContain('--set event_loop.max_iterations=ten');
  });

  it('an unknown --set key is reported against the flag with a suggestion', () => {
    const err = configError(() =>
      loadConfig({ cwd: dir, overrides: [parseSetOverride('event_loop.max_iteratons=5')] }),
    );
    const issue = err.issues[0]!;
    expect(issue.file).toBe('--set event_loop.max_iteratons=5');
    expect(issue.message).toContain('did you mean "max_iterations"');
  });
});

describe('seed 000 ralph.yml', () => {
  it('validates unchanged, with its three hats and persistent mode', () => {
    const file = join(seedDir, 'ralph.yml');
    const { config } = loadConfig({ file, cwd: seedDir });
    expect(Object.keys(config.hats)).toEqual(['board_scanner', 'proposal_writer', 'finisher']);
    expect(config.event_loop).toMatchObject({
      prompt_file: 'PROMPT.md',
      completion_promise: 'LOOP_COMPLETE',
      max_iterations: 100,
      max_runtime_seconds: 3600,
      cooldown_delay_seconds: 30,
      starting_event: 'board.scan',
      persistent: true,
    });
    expect(config.cli.backend).toBe('claude');
    const scanner = config.hats.board_scanner!;
    expect(scanner.name).toBe('Board Scanner');
    expect(scanner.triggers).toEqual(['board.scan', 'board.rescan', 'task.resume']);
    expect(scanner.publishes).toEqual(['work.propose', 'work.finish', 'LOOP_COMPLETE']);
    expect(scanner.default_publishes).toBe('LOOP_COMPLETE');
    expect(scanner.instructions).toContain('## Board Scanner');
    expect(config.hats.proposal_writer!.triggers).toEqual(['work.propose']);
    expect(config.hats.proposal_writer!.default_publishes).toBe('board.rescan');
    expect(config.hats.finisher!.triggers).toEqual(['work.finish']);
    expect(config.tasks.enabled).toBe(true);
    expect(config.memories).toMatchObject({ enabled: true, inject: 'auto', budget: 2000 });
    expect(config.RObot.enabled).toBe(false);
  });

  it('the seed PROMPT.md fixture is present', async () => {
    const { readFileSync } = await import('node:fs');
    const prompt = readFileSync(join(seedDir, 'PROMPT.md'), 'utf8');
    expect(prompt.startsWith('# Autonomous Worker\n')).toBe(true);
    expect(prompt).toContain('Only the board scanner publishes LOOP_COMPLETE');
  });
});
