import picomatch from 'picomatch/posix.js';

/**
 * How the config's path patterns (`gates.protect`, `event_loop.idle_watch`) select workspace paths:
 * picomatch globs (`*`, `?`, `**`, `{a,b}`, `[abc]`, extglobs) on workspace-relative `/` paths,
 * anchored at the workspace root (`*.md` is the root's only; `**\/*.md` any depth), with `dot: true`
 * (`*` and `**` match dot-files: `**\/*.yml` covers `.github/workflows/ci.yml`). As in .gitignore:
 * a pattern that matches a directory covers everything under it (`test` = `test/**`), a trailing
 * `/` matches directories only, a leading `/` or `./` changes nothing, and `!pattern` takes back
 * what earlier patterns selected (the last pattern that matches a path decides).
 */
export const GLOB_OPTIONS = { dot: true } as const;

/** A path selector: workspace-relative `/` path (a directory when `isDir`) → selected? */
export type PathMatcher = (path: string, isDir?: boolean) => boolean;

interface Compiled {
  negated: boolean;
  /** Trailing `/`: only a directory (a parent of the path, or the path when it is one) can match. */
  dirOnly: boolean;
  test: (path: string) => boolean;
}

/** The pattern picomatch is given: no `!`, no leading `/` or `./`, no trailing `/` (`.` = everything). */
export function globOf(pattern: string): string {
  const p = pattern
    .replace(/^!/, '')
    .replace(/^(?:\.?\/)+/, '')
    .replace(/\/+$/, '');
  return p === '' || p === '.' ? '**' : p;
}

// Compiled patterns by their text: the loop builds its matchers every iteration, and picomatch's
// parse was a third of a millisecond of each. A matcher holds no state. Bounded: a long-lived fleet
// worker sees many configs.
const compiledCache = new Map<string, Compiled>();
const COMPILED_CACHE_MAX = 512;

function compile(pattern: string): Compiled {
  const cached = compiledCache.get(pattern);
  if (cached) return cached;
  const compiled: Compiled = {
    negated: pattern.startsWith('!'),
    dirOnly: /[^/]\/+$/.test(pattern.replace(/^!/, '')),
    test: picomatch(globOf(pattern), GLOB_OPTIONS),
  };
  if (compiledCache.size >= COMPILED_CACHE_MAX) compiledCache.clear();
  compiledCache.set(pattern, compiled);
  return compiled;
}

/** The path's parent directories, outermost first, then the path itself (`a/b/c` → a, a/b, a/b/c). */
function selfAndParents(path: string): string[] {
  const parts = path.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * One matcher for a pattern list (the last pattern that matches a path, or a parent of it, decides).
 * `parentsCleared`: the caller asks only of paths whose parents it found unmatched (a walk that
 * prunes), so with no negated pattern the path alone decides — a deep walk skips its parents.
 */
export function pathMatcher(patterns: readonly string[], o: { parentsCleared?: boolean } = {}): PathMatcher {
  const compiled = patterns.map(compile);
  const selfOnly = o.parentsCleared === true && !compiled.some((c) => c.negated);
  return (path, isDir = false) => {
    const chain = selfOnly ? [path] : selfAndParents(path);
    let selected = false;
    for (const c of compiled) {
      const hit = chain.some((p, i) => (!c.dirOnly || isDir || i < chain.length - 1) && c.test(p));
      if (hit) selected = !c.negated;
    }
    return selected;
  };
}

/**
 * The directory all of a pattern's matches live in ('' = the root): its leading segments free of
 * any character picomatch may read as syntax (even `|` alternates at the top level: `b|[a` matches b).
 */
export function patternBase(pattern: string): string {
  const glob = globOf(pattern);
  // A `|` outside any group splits the whole pattern in two (picomatch reads `a/|*` as `a/` or `*`):
  // no fixed directory holds every match.
  if (topLevelBar(glob)) return '';
  const fixed: string[] = [];
  for (const segment of glob.split('/')) {
    // `.` and `..` name no directory of their own to walk from (`b/.` matches the path `b/.`
    // only, never a file under b/, as picomatch reads it).
    if (segment === '.' || segment === '..' || /[*?[\]{}()|!+@\\^$]/.test(segment)) break;
    fixed.push(segment);
  }
  return fixed.join('/');
}

function topLevelBar(glob: string): boolean {
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/** A pattern that selects exactly this path (its glob characters escaped). */
export function literalPattern(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@]/g, '\\$&');
}

/** True for a pattern that takes paths back (`!pattern`). */
export function isNegated(pattern: string): boolean {
  return pattern.startsWith('!');
}
