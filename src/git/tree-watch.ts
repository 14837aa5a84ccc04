import { type Dirent, type FSWatcher, lstatSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';

/**
 * A watch on every directory of a work tree: one inotify watch per directory (it reports changes
 * to the directory's entries), not one per file. Only counts: equal counts at two moments mean no
 * watched path changed in between.
 */
export interface TreeWatch {
  /** Changes seen so far to paths that are not skipped. */
  readonly changes: number;
  /** False once the tree could not be watched whole (too many directories, no permission, an error). */
  readonly complete: boolean;
  close(): void;
}

export interface TreeWatchOptions {
  /** Paths (relative to the top, `/`-separated) whose changes do not matter; a skipped directory is not entered. */
  skip: (rel: string) => boolean;
  /** More directories than this: the watch gives up (complete = false) rather than hold that many. */
  maxDirs: number;
  /** False: only `top` itself (changes to its entries), no directory below it. Default true. */
  recursive?: boolean | undefined;
  /**
   * Called at each counted change with the changed path (relative to the top, `/`-separated), or
   * null when the system did not say which entry changed.
   */
  onChange?: ((rel: string | null) => void) | undefined;
}

/**
 * Watches `top` and every directory below it (symbolic links are not followed, like git). A
 * directory created later is watched when its creation is seen; until then its creation is itself
 * a change, so nothing inside it can go unseen by a caller that compares counts.
 */
export function watchTree(top: string, options: TreeWatchOptions): TreeWatch {
  const dirs = new Map<string, FSWatcher>();
  let changes = 0;
  let complete = true;
  let closed = false;

  const closeAll = () => {
    for (const watcher of dirs.values()) watcher.close();
    dirs.clear();
  };
  const giveUp = () => {
    complete = false;
    closeAll();
  };
  const unwatch = (rel: string) => {
    for (const [key, watcher] of dirs)
      if (key === rel || key.startsWith(`${rel}/`)) {
        watcher.close();
        dirs.delete(key);
      }
  };

  const add = (rel: string): void => {
    if (!complete || closed) return;
    if (dirs.size >= options.maxDirs) {
      giveUp();
      return;
    }
    const abs = rel === '' ? top : join(top, rel);
    let watcher: FSWatcher;
    try {
      watcher = watch(abs, { persistent: false }, (event, name) => onEvent(rel, event, name));
    } catch (error) {
      // Removed meanwhile: its removal is a change its parent's watch reports.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') giveUp();
      return;
    }
    watcher.on('error', giveUp);
    dirs.set(rel, watcher);
    // Listed after the watch is set: a subdirectory created meanwhile is reported or listed.
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      giveUp();
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || options.recursive === false) continue;
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (options.skip(child)) continue;
      add(child);
    }
  };

  function onEvent(rel: string, event: string, name: string | null): void {
    if (closed) return;
    if (name === null) {
      changes++;
      options.onChange?.(null);
      return;
    }
    const child = rel === '' ? name : `${rel}/${name}`;
    if (options.skip(child)) return;
    changes++;
    options.onChange?.(child);
    if (options.recursive === false) return;
    // A directory created, removed, or moved in or out is watched afresh: its watch (if any) died
    // with the old directory, and a new one may even reuse the old inode number.
    if (event !== 'rename' && dirs.has(child)) return;
    if (dirs.has(child)) unwatch(child);
    if (lstatSync(join(top, child), { throwIfNoEntry: false })?.isDirectory()) add(child);
  }

  if (lstatSync(top, { throwIfNoEntry: false })?.isDirectory()) add('');
  else complete = false;

  return {
    get changes() {
      return changes;
    },
    get complete() {
      return complete;
    },
    close() {
      closed = true;
      closeAll();
    },
  };
}
