import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../../src/config/load-config.ts';
import {
  expandAffected,
  planTests,
  relatedTests,
} from '../../../../../src/engine/gates/checks/affected-tests.ts';
import { ConfigError } from '../../../../../src/errors.ts';
import { removeWhenDone } from '../../../../helpers/workspace.ts';

const tests = { command: 'npm test', affected: 'vitest related --run {files}', full_every: 4 };
const plan = (o: Partial<Parameters<typeof planTests>[0]>) =>
  planTests({
    tests,
    iteration: 1,
    completionRequested: false,
    changes: { files: ['src/a.ts'], deleted: [] },
    exists: () => false,
    ...o,
  });

describe('planTests', () => {
  it('runs the affected tests with the changed files, the full suite when it must, nothing without changes', () => {
    expect(plan({})).toEqual({
      scope: 'affected',
      command: 'vitest related --run src/a.ts',
      files: ['src/a.ts'],
    });
    expect(plan({ tests: { command: 'npm test' } })).toEqual({
      scope: 'full',
      command: 'npm test',
      why: null,
    });
    expect(plan({ completionRequested: true })).toMatchObject({ scope: 'full', why: 'completion requested' });
    expect(plan({ iteration: 8 })).toMatchObject({
      scope: 'full',
      why: expect.stringContaining('full_every'),
    });
    expect(plan({ changes: null })).toMatchObject({ scope: 'full', why: expect.stringContaining('unknown') });
    expect(plan({ changes: { files: ['a.ts'], deleted: ['b.ts'] } })).toMatchObject({
      scope: 'full',
      why: expect.stringContaining('deleted'),
    });
    const many = Array.from({ length: 201 }, (_, i) => `f${i}.ts`);
    expect(plan({ changes: { files: many, deleted: [] } })).toMatchObject({ scope: 'full' });
    expect(plan({ changes: { files: [], deleted: [] } })).toEqual({ scope: 'skipped', why: 'no changes' });
  });

  it('maps {tests} to test files by name, and skips when none exists', () => {
    const existing = new Set(['tests/test_models.py', 'pkg/util_test.py']);
    const exists = (p: string) => existing.has(p);
    expect(
      relatedTests(['src/models.py', 'pkg/util.py', 'tests/test_views.py', 'README.md'], exists),
    ).toEqual(['pkg/util_test.py', 'tests/test_models.py', 'tests/test_views.py']);
    const pytest = { command: 'pytest', affected: 'pytest -q {tests}' };
    expect(plan({ tests: pytest, changes: { files: ['src/models.py'], deleted: [] }, exists })).toEqual({
      scope: 'affected',
      command: 'pytest -q tests/test_models.py',
      files: ['src/models.py'],
    });
    expect(plan({ tests: pytest, changes: { files: ['docs/x.md'], deleted: [] }, exists })).toEqual({
      scope: 'skipped',
      why: 'no test file maps to the changed files',
    });
  });

  it('quotes every file name as one word: sh sees it unchanged, and {tests} or $& in a name is not expanded', () => {
    expect(expandAffected('t {files}', ['-rf', '{tests}', "a'$&b"], ['x'])).toBe(
      "t ./-rf '{tests}' 'a'\\''$&b'",
    );
    // What sh -c receives: each name exactly, as one argument (names cannot hold NUL).
    const name = fc.string({ minLength: 1, unit: 'binary' }).filter((n) => !n.includes('\0'));
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), (names) => {
        const out = execFileSync('sh', ['-c', `printf '%s\\0' ${expandAffected('{files}', names, [])}`], {
          encoding: 'utf8',
        });
        expect(out.split('\0').slice(0, -1)).toEqual(names.map((n) => (n.startsWith('-') ? `./${n}` : n)));
      }),
      { numRuns: 15 },
    );
  });
});

describe('gates.tests.affected in ralph.yml', () => {
  const load = (text: string) => {
    const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'ralph-affected-')));
    const file = join(dir, 'ralph.yml');
    writeFileSync(file, text);
    return () => loadConfig({ file, cwd: dir });
  };

  it('refuses a command without {files} or {tests}, and full_every without affected, saying what to do', () => {
    expect(load('gates:\n  tests:\n    command: npm test\n    affected: vitest related\n')).toThrow(
      /must contain \{files\} \(the changed files\) or \{tests\}/,
    );
    expect(load('gates:\n  tests:\n    command: npm test\n    full_every: 3\n')).toThrow(ConfigError);
    expect(load('gates:\n  tests:\n    command: npm test\n    full_every: 3\n')).toThrow(
      /full_every needs gates.tests.affected/,
    );
  });
});
