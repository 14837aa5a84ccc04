import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  isNegated,
  literalPattern,
  type PathMatcher,
  pathMatcher,
  patternBase,
} from '../config/path-patterns.ts';
import type { RalphConfig } from '../config/schema.ts';
import { RalphError } from '../errors.ts';
import { statCached } from '../state/io/stat-cache.ts';
import { RUNTIME_PATHS } from '../state/paths.ts';

/** What Ralph protects by default: its validate hook and the usual CI configuration. */
export const DEFAULT_PROTECTED = [
  '.ralph/validate.sh',
  '.github/workflows/**',
  '.gitlab-ci.yml',
  '.circleci/**',
  '.ci/**',
] as const;

/** Files bigger than this are protected by their hash only (no copy to run gates from). */
const MAX_COPY_BYTES = 4 * 1024 * 1024;
/**
 * The most files and directories one walk for protected files visits (every iteration walks again).
 * A walk that would go further is an error, never a silent cut: files past it would look protected
 * and not be.
 */
const MAX_WALK = 50_000;

/**
 * The globs a run protects: `gates.protect`, else the defaults plus the files named in the test
 * (full and affected) and validate commands (e.g. `sh scripts/check.sh` protects scripts/check.sh).
 */
export function protectedGlobs(config: RalphConfig, workspace: string): string[] {
  if (config.gates.protect !== undefined) return [...config.gates.protect];
  const commands = [
    config.gates.tests?.command,
    config.gates.tests?.affected,
    typeof config.gates.validate === 'string' ? config.gates.validate : undefined,
  ];
  const named = commands
    .flatMap((c) => (c ?? '').split(/\s+/))
    .map((t) => t.replace(/^\.\//, ''))
    .filter(
      (t) =>
        t &&
        !t.startsWith('-') &&
        !t.includes('..') &&
        existsSync(join(workspace, t)) &&
        statSync(join(workspace, t)).isFile(),
    );
  return [...new Set([...DEFAULT_PROTECTED, ...named.map(literalPattern)])];
}

/**
 * Never protected: git's and dependencies' directories, and Ralph's runtime files (they change
 * every iteration). Compiled at the first walk, not when the module loads (every command that
 * imports this module would pay for picomatch's parse).
 */
let neverWalkedMatcher: PathMatcher | undefined;
function neverWalked(path: string, isDir?: boolean): boolean {
  neverWalkedMatcher ??= pathMatcher(['**/.git', '**/node_modules/', ...RUNTIME_PATHS]);
  return neverWalkedMatcher(path, isDir);
}

/**
 * Every existing file the patterns select (config/path-patterns.ts), workspace-relative with `/`,
 * sorted. Only the directories the patterns can match in are walked.
 */
export function matchProtected(workspace: string, patterns: readonly string[]): string[] {
  const { selects, roots } = compiled(patterns);
  const found: string[] = [];
  for (const rel of walkFiles(workspace, roots, patterns)) if (selects(rel)) found.push(rel);
  return found.sort();
}

let lastCompiled: { key: string; selects: PathMatcher; roots: string[] } | undefined;

/** The patterns' matcher and walk roots, worked out once while they stay the same (every iteration asks). */
function compiled(patterns: readonly string[]): { selects: PathMatcher; roots: string[] } {
  const key = patterns.join('\0');
  if (lastCompiled?.key !== key)
    lastCompiled = { key, selects: pathMatcher(patterns), roots: walkRoots(patterns) };
  return lastCompiled;
}

/** The patterns that select no existing file on their own (`!` patterns are not counted). */
export function unmatchedPatterns(workspace: string, patterns: readonly string[]): string[] {
  const positive = patterns.filter((p) => !isNegated(p));
  const files = walkFiles(workspace, walkRoots(positive), positive);
  return positive.filter((p) => {
    const selects = pathMatcher([p]);
    return !files.some((f) => selects(f));
  });
}

/** The patterns' base directories, none inside another ('' = the whole workspace). */
function walkRoots(patterns: readonly string[]): string[] {
  const bases = [...new Set(patterns.filter((p) => !isNegated(p)).map(patternBase))].sort();
  return bases.filter((b) => !bases.some((o) => o !== b && (o === '' || b.startsWith(`${o}/`))));
}

/**
 * The files under the roots (workspace-relative); throws past MAX_WALK entries, naming the root and
 * its patterns. Iterative: a deep tree cannot overflow the stack.
 */
function walkFiles(workspace: string, roots: readonly string[], patterns: readonly string[]): string[] {
  const files: string[] = [];
  let walked = 0;
  for (const root of roots) {
    // Breadth first: the limit is met level by level, before a symlink loop gets deep.
    const todo = [root];
    for (let next = 0; next < todo.length; next++) {
      const rel = todo[next] as string;
      if (++walked > MAX_WALK) throw walkTooBig(root, patterns);
      const st = statSync(join(workspace, rel), { throwIfNoEntry: false });
      // Most roots (the default CI paths) do not exist: nothing to match against neverWalked.
      if (st === undefined || (rel !== '' && neverWalked(rel, st.isDirectory()))) continue;
      if (st.isDirectory())
        for (const name of readdirSync(join(workspace, rel))) todo.push(rel === '' ? name : `${rel}/${name}`);
      else if (st.isFile()) files.push(rel);
    }
  }
  return files;
}

function walkTooBig(root: string, patterns: readonly string[]): RalphError {
  const mine = patterns.filter(
    (p) => !isNegated(p) && (root === '' || `${patternBase(p)}/`.startsWith(`${root}/`)),
  );
  return new RalphError(
    'preflight',
    `gates.protect: ${mine.map((p) => `'${p}'`).join(', ')} would have Ralph hash every file under ${root === '' ? 'the whole workspace' : `'${root}/'`}, more than ${MAX_WALK.toLocaleString('en-US')} files and directories; Ralph stops rather than protect only part of them. Start the pattern in the directory that holds the files to protect (e.g. 'tests/**' rather than '**/*.test.ts'), or move generated files out of it`,
  );
}

/**
 * The file's sha256, or null when it cannot be read. A file whose identity, size and change times
 * are as when it was last hashed is not read again (every iteration checks every protected file).
 */
export function hashFile(path: string): string | null {
  try {
    return hashCached(path);
  } catch {
    return null;
  }
}

const hashCached = statCached((path) => createHash('sha256').update(readFileSync(path)).digest('hex'));

/** The protected files' hashes now (path → sha256). */
export function snapshot(workspace: string, globs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of matchProtected(workspace, globs)) {
    const h = hashFile(join(workspace, rel));
    if (h) out[rel] = h;
  }
  return out;
}

/** Paths whose content differs from the baseline: changed, deleted, or new files that match. */
export function tamperedPaths(baseline: Record<string, string>, now: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(baseline), ...Object.keys(now)]);
  return [...paths].filter((p) => baseline[p] !== now[p]).sort();
}

/** Keeps a copy of each protected file (under `store`), so gates can run from the protected content. */
export function keepCopies(workspace: string, store: string, baseline: Record<string, string>): void {
  for (const [rel, hash] of Object.entries(baseline)) {
    const copy = join(store, hash);
    if (existsSync(copy)) continue;
    const abs = join(workspace, rel);
    if (statSync(abs).size > MAX_COPY_BYTES) continue;
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, readFileSync(abs));
  }
}
