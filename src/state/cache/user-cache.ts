import { chmodSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

// Ralph's caches in the user's cache directory (the config cache, the CLI's V8 code cache): never in
// a workspace the agent edits, owner-only, and any entry that is not exactly what Ralph wrote is no
// cache. Small and free of other imports: the CLI's entry loads it before anything else.

/** `$XDG_CACHE_HOME/ralph/<name>` (default `~/.cache/ralph/<name>`). */
export function userCacheDir(env: NodeJS.ProcessEnv, name: string): string {
  const base = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.cache');
  return join(base, 'ralph', name);
}

/** Makes `dir` (and its parents) and keeps it owner-only (0700), as it may have been made before. */
export function makeOwnerOnlyDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * The file's bytes if it is a regular file of this user that no one else can read or write (a
 * file another user planted or could change is no cache), else undefined. Throws when it cannot
 * be opened (no such file).
 */
export function readOwnerOnly(file: string): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
