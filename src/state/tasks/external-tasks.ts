import { relative } from 'node:path';
import { setBeadsStatus } from './beads-issues.ts';
import { setStoryPasses } from './prd-stories.ts';
import { isBeadsIssue, isStory, readAllTasks, type TaskFiles } from './task-list.ts';

// A parallel run over `tasks.source: prd.json` or `beads`: the stories or issues are handed out as
// tasks are, and their state is kept in their own file (the one `ralph tools task` writes).

/** The `root`-relative file `id` lives in when it is a story or a beads issue, else undefined. */
export function externalFile(files: TaskFiles, root: string, id: string): string | undefined {
  if (isStory(files, id)) return relative(root, files.prd);
  if (isBeadsIssue(files, id)) return relative(root, files.beads.file);
  return undefined;
}

/**
 * Marks a beads issue in progress while a worker has it; a story has no such state (it stays open:
 * the run's own claim keeps other workers off it). True when `id` was a story or an issue.
 */
export function startExternal(files: TaskFiles, id: string): boolean {
  if (isBeadsIssue(files, id)) {
    setBeadsStatus(files.beads, id, 'in_progress');
    return true;
  }
  return isStory(files, id);
}

/** Closes a merged story (`passes: true`) or beads issue: the `root`-relative file changed, or undefined when it was done already. */
export function closeExternal(files: TaskFiles, root: string, id: string): string | undefined {
  if (readAllTasks(files).find((t) => t.id === id)?.status === 'closed') return undefined;
  if (isStory(files, id)) {
    setStoryPasses(files.prd, id, true);
    return relative(root, files.prd);
  }
  if (isBeadsIssue(files, id)) {
    setBeadsStatus(files.beads, id, 'closed');
    return relative(root, files.beads.file);
  }
  return undefined;
}
