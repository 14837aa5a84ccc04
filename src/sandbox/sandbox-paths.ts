import { posix } from 'node:path';

/** `path` normalized (no `..`, `.`, doubled or trailing `/`), as rules and lookups compare it. */
export function normalPath(path: string): string {
  const n = posix.normalize(path);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

/** True when `path` is `dir` or below it (both absolute and normalized). */
export function isWithinOrEqual(path: string, dir: string): boolean {
  if (path === dir) return true;
  return path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/** True when `path` is strictly below `dir`. */
export function isWithin(path: string, dir: string): boolean {
  return path !== dir && isWithinOrEqual(path, dir);
}

/** Components below `/`: `/` is 0, `/a` is 1, `/a/b` 2 (a deeper rule is mounted after, and wins). */
export function depthOf(path: string): number {
  return path === '/' ? 0 : path.split('/').length - 1;
}

/**
 * A path as written in `sandbox.allow_*` made absolute: `~` and `~/…` against `home`, a relative
 * path against the workspace (where the agent runs), then normalized.
 */
export function expandPath(written: string, home: string, workspace: string): string {
  if (written === '~') return normalPath(home);
  if (written.startsWith('~/')) return normalPath(posix.join(home, written.slice(2)));
  return normalPath(posix.resolve(workspace, written));
}

/** `path` with the home directory shown as `~` (what a user reads in the policy's lines). */
export function tildePath(path: string, home: string): string {
  if (home === '/' || !isWithinOrEqual(path, home)) return path;
  return path === home ? '~' : `~${path.slice(home.length)}`;
}
