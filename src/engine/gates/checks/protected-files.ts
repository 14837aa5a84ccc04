import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { isNegated, literalPattern, type PathMatcher, pathMatcher } from '../../../config/path-patterns.ts';
import type { RalphConfig } from '../../../config/schema.ts';
import { isWithinOrEqual } from '../../../sandbox/sandbox-paths.ts';
import { writeFileAtomicSync } from '../../../state/io/atomic-write.ts';
import { hashFile } from '../../../state/io/stat-cache.ts';
import { walkFiles, walkRoots } from './bounded-walk.ts';

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
 * The globs a run protects: the built-in ones — the defaults plus the files named in the test (full
 * and affected), validate and metric commands (e.g. `sh scripts/check.sh` protects scripts/check.sh),
 * the review gate's prompt file, and the files named in the commands of enabled lifecycle hooks (a
 * `block` hook checks the work as a gate does) — and
 * `gates.protect` on top. The built-ins come last: a `!pattern` of the user's cannot take them back
 * (the last pattern that matches decides), so an explicit list never unprotects the validate hook.
 */
export function protectedGlobs(config: RalphConfig, workspace: string): string[] {
  const commands = [
    config.gates.tests?.command,
    config.gates.tests?.affected,
    typeof config.gates.validate === 'string' ? config.gates.validate : undefined,
    // The judges besides the gates: the metric loop's measure and the reviewer's prompt.
    config.metric?.command,
    config.gates.review?.prompt_file,
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
  const files = [...named, ...hookCommandFiles(config, workspace)];
  return [...new Set([...(config.gates.protect ?? []), ...DEFAULT_PROTECTED, ...files.map(literalPattern)])];
}

/**
 * The config files of the run that lie in the workspace (ralph.yml, a `-H` hats file, hat imports),
 * as literal globs: an agent that edits them would loosen the gates of the run `--resume` reloads.
 */
export function configFileGlobs(workspace: string, configFiles: readonly string[]): string[] {
  const files = [...configFiles, join(workspace, 'ralph.yml'), join(workspace, 'ralph.yaml')]
    .map((f) => resolve(workspace, f))
    .filter((f) => isWithinOrEqual(f, workspace) && isFile(f));
  return [...new Set(files.map((f) => literalPattern(relative(workspace, f).split(sep).join('/'))))];
}

/** The workspace files an enabled hook's argv names (`./scripts/hooks/check.sh`, `sh check.sh`), from its `cwd`. */
export function hookCommandFiles(config: RalphConfig, workspace: string): string[] {
  if (!config.hooks?.enabled) return [];
  const hooks = Object.values(config.hooks.events ?? {}).flatMap((list) => list ?? []);
  return hooks.flatMap((hook) =>
    hook.command
      .filter((word) => word !== '' && !word.startsWith('-'))
      .map((word) => resolve(workspace, hook.cwd ?? '.', word))
      .filter((file) => isWithinOrEqual(file, workspace) && isFile(file))
      .map((file) => relative(workspace, file).split(sep).join('/')),
  );
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Every existing file the patterns select (config/path-patterns.ts), workspace-relative with `/`,
 * sorted. Only the directories the patterns can match in are walked.
 */
export function matchProtected(workspace: string, patterns: readonly string[]): string[] {
  const { selects, roots } = compiled(patterns);
  const found: string[] = [];
  for (const rel of walkFiles(workspace, roots, patterns, 'gates.protect')) if (selects(rel)) found.push(rel);
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
  const files = walkFiles(workspace, walkRoots(positive), positive, 'gates.protect');
  return positive.filter((p) => {
    const selects = pathMatcher([p]);
    return !files.some((f) => selects(f));
  });
}

/**
 * A protected file as git sees it: `<sha256>:<mode>`, the mode git's (100644, 100755, or 120000 for
 * a symlink, whose sha256 is of its target's name): taking the executable bit off the validate hook
 * turns it off, and a symlink with the same content points at a file the agent may edit. Null when
 * it cannot be read.
 */
export function fileEntry(path: string): string | null {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return `${createHash('sha256').update(readlinkSync(path)).digest('hex')}:120000`;
    const hash = hashFile(path);
    return hash && `${hash}:${st.mode & 0o111 ? '100755' : '100644'}`;
  } catch {
    return null;
  }
}

/** The content's sha256 of an entry (a baseline saved before modes were kept holds only that). */
export const contentHash = (entry: string): string => entry.split(':')[0] as string;

/** The entry's git mode; undefined for a baseline entry saved before modes were kept. */
export const entryMode = (entry: string): string | undefined => entry.split(':')[1];

/**
 * The protected files now (path → `fileEntry`). One reached through a directory made a link is
 * marked: git sees it deleted (the link committed instead), so it must not compare equal.
 */
export function snapshot(workspace: string, globs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of matchProtected(workspace, globs)) {
    const entry = fileEntry(join(workspace, rel));
    if (entry) out[rel] = realDirsTo(workspace, rel) ? entry : `${entry}:through-link`;
  }
  return out;
}

/** Whether every directory from the workspace down to `rel`'s parent is a directory, not a link. */
export function realDirsTo(workspace: string, rel: string): boolean {
  const parts = rel.split('/').slice(0, -1);
  return parts.every(
    (_, i) =>
      lstatSync(join(workspace, ...parts.slice(0, i + 1)), { throwIfNoEntry: false })?.isDirectory() === true,
  );
}

/** Whether `now` is the file `base` recorded; a content-only baseline (an older state.json) compares content. */
function sameFile(base: string | undefined, now: string | undefined): boolean {
  if (base === undefined || now === undefined) return base === now;
  if (entryMode(base) === undefined) return entryMode(now) !== '120000' && base === contentHash(now);
  return base === now;
}

/** Paths that differ from the baseline in content, mode or type: changed, deleted, or new files that match. */
export function tamperedPaths(baseline: Record<string, string>, now: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(baseline), ...Object.keys(now)]);
  return [...paths].filter((p) => !sameFile(baseline[p], now[p])).sort();
}

/** Keeps a copy of each protected file's content (under `store`, by its sha256), so gates can run from it. */
export function keepCopies(
  workspace: string,
  store: string,
  baseline: Record<string, string>,
  holdsSecret: (text: string) => boolean = () => false,
): void {
  for (const [rel, entry] of Object.entries(baseline)) {
    // A symlink is protected by its target's name only: there is no content of its own to run from.
    if (entryMode(entry) === '120000') continue;
    const copy = join(store, contentHash(entry));
    if (existsSync(copy)) continue;
    const abs = join(workspace, rel);
    if (statSync(abs).size > MAX_COPY_BYTES) continue;
    const content = readFileSync(abs);
    // A file holding a secret (a ralph.yml with a token) is protected by its hash only: Ralph writes
    // no secret into .ralph/, and a gate never runs from the config anyway.
    if (holdsSecret(content.toString('utf8'))) continue;
    writeFileAtomicSync(copy, content);
  }
}
