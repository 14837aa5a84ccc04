import { basename, dirname, extname, join } from 'node:path';
import { shellQuote } from '../../../process/shell-quote.ts';

/** More changed files than this run the full suite: the affected set would be most of it anyway. */
export const AFFECTED_MAX_FILES = 200;

/** What an iteration changed, workspace-relative; null when it cannot be told (a huge workspace outside git). */
export interface ChangedFiles {
  /** Changed or added files that exist now. */
  files: string[];
  /** Files the iteration deleted. */
  deleted: string[];
}

/** The tests settings `planTests` needs (`gates.tests`). */
export interface TestsSettings {
  command: string;
  affected?: string | undefined;
  full_every?: number | undefined;
}

/** Which tests an iteration runs: the full suite, the affected ones, or none (with why). */
export type TestsPlan =
  | { scope: 'full'; command: string; why: string | null }
  | { scope: 'affected'; command: string; files: string[] }
  | { scope: 'skipped'; why: string };

/**
 * Decides which tests run after an iteration (pure). The full `command` runs without `affected`,
 * before any completion, on every `full_every`-th iteration, and whenever the affected set cannot
 * be trusted (changes unknown, files deleted, too many files); otherwise `affected` with the
 * changed files (`{files}`) or the tests they map to (`{tests}`, see `relatedTests`).
 */
export function planTests(input: {
  tests: TestsSettings;
  iteration: number;
  completionRequested: boolean;
  changes: ChangedFiles | null;
  exists: (path: string) => boolean;
}): TestsPlan {
  const { tests, changes } = input;
  const full = (why: string | null): TestsPlan => ({ scope: 'full', command: tests.command, why });
  if (tests.affected === undefined) return full(null);
  if (input.completionRequested) return full('completion requested');
  if (tests.full_every !== undefined && input.iteration % tests.full_every === 0)
    return full(`every ${tests.full_every} iterations (gates.tests.full_every)`);
  if (changes === null) return full('the changed files are unknown (a workspace too big to fingerprint)');
  if (changes.deleted.length > 0)
    return full(`files were deleted (${changes.deleted.length}): the tests that used them are unknown`);
  if (changes.files.length === 0) return { scope: 'skipped', why: 'no changes' };
  if (changes.files.length > AFFECTED_MAX_FILES)
    return full(`${changes.files.length} files changed (more than ${AFFECTED_MAX_FILES})`);
  const related = tests.affected.includes('{tests}') ? relatedTests(changes.files, input.exists) : [];
  if (tests.affected.includes('{tests}') && related.length === 0)
    return { scope: 'skipped', why: 'no test file maps to the changed files' };
  return {
    scope: 'affected',
    command: expandAffected(tests.affected, changes.files, related),
    files: changes.files,
  };
}

/** A test file by name: `test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.js`. */
export function isTestFile(path: string): boolean {
  const name = basename(path);
  return /^test_/.test(name) || /_test\.[^.]+$/.test(name) || /\.(test|spec)\.[^.]+$/.test(name);
}

/**
 * The test files `{tests}` stands for (pytest's conventions): each changed test file itself, and for
 * a changed `dir/name.ext` the files among `dir/test_name.ext`, `dir/name_test.ext`,
 * `dir/tests/test_name.ext`, `tests/test_name.ext`, `test/test_name.ext` and `tests/<dir>/test_name.ext`
 * that exist.
 */
export function relatedTests(files: readonly string[], exists: (path: string) => boolean): string[] {
  const found = new Set<string>();
  for (const file of files) {
    if (isTestFile(file)) {
      found.add(file);
      continue;
    }
    const ext = extname(file);
    const stem = basename(file, ext);
    const dir = dirname(file);
    const under = (d: string, n: string) => (d === '.' ? n : join(d, n));
    const candidates = [
      under(dir, `test_${stem}${ext}`),
      under(dir, `${stem}_test${ext}`),
      under(join(dir, 'tests'), `test_${stem}${ext}`),
      join('tests', `test_${stem}${ext}`),
      join('test', `test_${stem}${ext}`),
      under(join('tests', dir.replace(/^(src|lib)(\/|$)/, '')), `test_${stem}${ext}`),
    ];
    for (const c of candidates) if (exists(c)) found.add(c);
  }
  return [...found].sort();
}

/** One shell word per path; a path starting with `-` gets `./` so it is never read as an option. */
function words(paths: readonly string[]): string {
  return paths.map((p) => shellQuote(p.startsWith('-') ? `./${p}` : p)).join(' ');
}

/** The affected command with `{files}` and `{tests}` replaced by quoted paths (no shell injection). */
export function expandAffected(template: string, files: readonly string[], tests: readonly string[]): string {
  // One pass with a function: a file named `{tests}` or holding `$&` is never expanded again.
  return template.replace(/\{(files|tests)\}/g, (m) => words(m === '{files}' ? files : tests));
}
