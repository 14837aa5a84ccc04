import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { RalphError } from '../../errors.ts';
import type { WorkTreeLayout } from '../../git/work-tree-layout.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { removeFile } from '../../state/io/file-writes.ts';
import { hashFile } from '../../state/io/stat-cache.ts';
import { keepCopies } from './checks/protected-files.ts';

/** sha256 of each control file as the run started, by its name; null: absent, 'dir': a directory. */
export type ControlMark = Record<string, string | null>;

/**
 * The files in git's own directory that choose where git reads config, objects and refs, or how it
 * filters content: their bytes are fixed for the run, so no git call of Ralph's goes elsewhere.
 */
function controlFiles(layout: WorkTreeLayout): { name: string; path: string }[] {
  const paths = [
    // The `.git` entry: a directory, or a gitfile naming the git dir (a linked worktree's).
    join(layout.top, '.git'),
    // Where the common dir is: a path here sends every ref, object and config read to another repository.
    join(layout.gitDir, 'commondir'),
    // A linked worktree's way back to its work tree (`git worktree` repairs and prunes by it).
    ...(layout.gitDir === layout.commonDir ? [] : [join(layout.gitDir, 'gitdir')]),
    // Attributes read before .gitattributes: a filter set or taken off (`-filter`) in Ralph's add and status.
    join(layout.commonDir, 'info', 'attributes'),
    // Ignore patterns: a new file hidden from Ralph's commit and rollback.
    join(layout.commonDir, 'info', 'exclude'),
    // Replaced parents: the history Ralph's log, diff and rollback read is rewritten.
    join(layout.commonDir, 'info', 'grafts'),
    // Cut-off history: commits git treats as having no parent.
    join(layout.commonDir, 'shallow'),
    // Other object stores git reads objects from (a repository the agent controls).
    join(layout.commonDir, 'objects', 'info', 'alternates'),
  ];
  return paths.map((path) => ({ name: nameOf(layout, path), path }));
}

/** `.git/…` for the usual layout; a path outside the work tree stays absolute. */
function nameOf(layout: WorkTreeLayout, path: string): string {
  const rel = relative(layout.top, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split('\\').join('/');
}

function fingerprint(path: string): string | null {
  try {
    if (lstatSync(path).isDirectory()) return 'dir';
  } catch {
    return null;
  }
  return hashFile(path) ?? '';
}

/** The control files as they are now; copies of their bytes go to `store`, to put them back. */
export function markControlFiles(layout: WorkTreeLayout, store: string): ControlMark {
  const mark: ControlMark = {};
  const copies: Record<string, string> = {};
  for (const { name, path } of controlFiles(layout)) {
    const h = fingerprint(path);
    mark[name] = h;
    if (h && h !== 'dir') copies[path] = h;
  }
  keepCopies('/', store, copies);
  return mark;
}

/**
 * The control files that differ from `mark` (names), each put back at once — the agent's version
 * kept in `keep` — so Ralph's next git call reads the repository the run started with. A `.git`
 * entry turned from a directory into a file (or back) cannot be put back: the run stops first.
 */
export function holdControlFiles(
  layout: WorkTreeLayout,
  mark: ControlMark,
  store: string,
  keep: string,
): string[] {
  const changed: string[] = [];
  for (const { name, path } of controlFiles(layout)) {
    if (!(name in mark)) continue;
    const start = mark[name] ?? null;
    const now = fingerprint(path);
    if (now === start) continue;
    changed.push(name);
    if (now === 'dir' || start === 'dir')
      throw new RalphError(
        'git_state',
        `${path} was replaced during the iteration (a git directory and a file that points elsewhere), so Ralph runs no git command in it; put back the repository's ${name} as the run started, then \`ralph run --resume\``,
      );
    if (now !== null)
      writeFileAtomicSync(join(keep, `${changed.length}-${basename(path)}`), readFileSync(path, 'utf8'));
    if (start === null) {
      removeFile(path);
      continue;
    }
    const copy = join(store, start);
    if (!existsSync(copy) || hashFile(copy) !== start)
      throw new RalphError(
        'git_state',
        `${path} changed during the iteration and the run's copy of it (${copy}) is gone, so it cannot be put back; the run stopped before any git call — restore ${path} yourself, then \`ralph run --resume\``,
      );
    writeFileAtomicSync(path, readFileSync(copy, 'utf8'));
  }
  return changed;
}
