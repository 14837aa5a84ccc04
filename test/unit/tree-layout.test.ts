import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/workspace.ts';

// One home per domain (DESIGN.md §3, STYLE.md 3 and 11): a folder or file name says where a thing
// lives, so it is used once under src/, and test/unit/ mirrors src/ so a module's tests are found
// from its path.

const SRC = join(ROOT, 'src');
const UNIT = join(ROOT, 'test', 'unit');

/** Every file (or, with `dirs`, folder) below `dir`, as a path relative to `base` with `/`. */
function walk(dir: string, base: string, dirs = false): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    const rel = relative(base, path).split(sep).join('/');
    if (e.isDirectory()) return [...(dirs ? [rel] : []), ...walk(path, base, dirs)];
    return dirs ? [] : [rel];
  });
}

/** src/cli's folders are its command groups, named after the `ralph` commands (and the domains they drive). */
const CLI_GROUPS = /^cli\/[^/]+$/;
/** The one file per CLI command group that defines its commands (CONTRIBUTING.md, "The code"). */
const GROUP_FILE = 'commands.ts';

/** Names given to two things: `name: a, b` for each folder name (or file name) used more than once. */
function repeatedNames(paths: readonly string[], skip: (path: string) => boolean): string[] {
  const byName = new Map<string, string[]>();
  for (const p of paths) {
    if (skip(p)) continue;
    const name = p.split('/').at(-1) as string;
    byName.set(name, [...(byName.get(name) ?? []), p]);
  }
  return [...byName].filter(([, ps]) => ps.length > 1).map(([name, ps]) => `${name}: ${ps.join(', ')}`);
}

const repeatedFolders = (dirs: readonly string[]) => repeatedNames(dirs, (d) => CLI_GROUPS.test(d));
const repeatedFiles = (files: readonly string[]) =>
  repeatedNames(
    files,
    (f) => f.split('/').at(-1) === GROUP_FILE && CLI_GROUPS.test(f.slice(0, f.lastIndexOf('/'))),
  );

/**
 * The unit tests at the top of test/unit/: project-wide checks, tests of src/'s root files (errors.ts,
 * index.ts) and of the test support. Every other unit test lives in the folder of what it tests.
 */
const TOP_LEVEL_TESTS = [
  'architecture-doors.test.ts',
  'architecture-state-owners.test.ts',
  'architecture.test.ts',
  'docs-jargon.test.ts',
  'docs-links.test.ts',
  'e2e-shared-modules.test.ts',
  'error-codes.test.ts',
  'exit-codes-page.test.ts',
  'file-system-error.test.ts',
  'model-server.test.ts',
  'public-api.test.ts',
  'test-waits.test.ts',
  'tree-layout.test.ts',
  'workspace-cleanup.test.ts',
];

/** Unit tests (paths under test/unit/) whose folder is not one of src/, and top-level ones not named. */
function misplacedTests(
  tests: readonly string[],
  srcDirs: readonly string[],
  topLevel: readonly string[] = TOP_LEVEL_TESTS,
): string[] {
  const folders = new Set(srcDirs);
  return tests
    .filter((t) => t.endsWith('.test.ts'))
    .flatMap((t) => {
      const dir = t.includes('/') ? t.slice(0, t.lastIndexOf('/')) : '';
      if (dir === '')
        return topLevel.includes(t) ? [] : [`${t}: move it to test/unit/<the src folder it tests>/`];
      return folders.has(dir) ? [] : [`${t}: src/${dir}/ does not exist`];
    });
}

describe('one home per domain, tests that mirror src/ (DESIGN.md §3)', () => {
  const srcDirs = walk(SRC, SRC, true);
  const tests = walk(UNIT, UNIT);

  it('uses no folder name twice under src/ (src/cli names its command groups)', () => {
    expect(repeatedFolders(srcDirs), 'name the folder for what it holds, in one place').toEqual([]);
  });

  it('uses no file name twice under src/ (but commands.ts, one per command group)', () => {
    expect(repeatedFiles(walk(SRC, SRC)), 'name the file for what it holds').toEqual([]);
  });

  it('keeps every unit test in test/unit/<folder>/ for the src/<folder>/ it tests', () => {
    expect(misplacedTests(tests, srcDirs)).toEqual([]);
    const stale = TOP_LEVEL_TESTS.filter((t) => !tests.includes(t));
    expect(stale, 'drop the name from TOP_LEVEL_TESTS').toEqual([]);
  });

  it('would catch a planted folder name, file name and unit test out of place', () => {
    // Made-up names: a real path here would be renamed with the tree by /work/tools/rehome.mjs.
    // src/cli's command groups (cli/inbox, cli/launch) are not counted: they name the commands.
    expect(
      repeatedFolders([
        'engine',
        'engine/inbox',
        'inbox',
        'cli',
        'cli/inbox',
        'cli/launch',
        'engine/launch',
        'engine/vcs',
        'vcs',
      ]),
    ).toEqual(['inbox: engine/inbox, inbox', 'vcs: engine/vcs, vcs']);
    expect(
      repeatedFiles([
        'engine/turn/turn-record.ts',
        'store/turn-record.ts',
        'cli/launch/commands.ts',
        'cli/look/commands.ts',
        'engine/commands.ts',
        'store/commands.ts',
        'cli/entry.ts',
        'stub-agent/entry.ts',
      ]),
    ).toEqual([
      'turn-record.ts: engine/turn/turn-record.ts, store/turn-record.ts',
      'commands.ts: engine/commands.ts, store/commands.ts',
      'entry.ts: cli/entry.ts, stub-agent/entry.ts',
    ]);
    expect(
      misplacedTests(
        [
          'limits.test.ts',
          'engine/decide/limits.test.ts',
          'engine/gone/x.test.ts',
          'public-api.test.ts',
          'a.ts',
        ],
        ['engine', 'engine/decide'],
        ['public-api.test.ts'],
      ),
    ).toEqual([
      'limits.test.ts: move it to test/unit/<the src folder it tests>/',
      'engine/gone/x.test.ts: src/engine/gone/ does not exist',
    ]);
  });
});
