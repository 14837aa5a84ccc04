import { RalphError } from '../../errors.ts';
import { writeFileAtomicSync } from '../io/atomic-write.ts';
import { withFileLock } from '../io/file-lock.ts';
import { readJsonl } from '../io/jsonl.ts';
import { readTextCached } from '../io/stat-cache.ts';
import type { Task } from './task.ts';
import { linesOf, type TaskLine, taskLine, tasksFileText, tasksOf } from './task-line.ts';

/** The lines of a tasks file (read again only once it changed); a missing file has none. */
function readLines(path: string): TaskLine[] {
  let text: string;
  try {
    const read = readTextCached(path);
    if (!('text' in read)) return [];
    text = read.text;
  } catch (error) {
    throw new RalphError('tasks_unreadable', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return linesOf(text);
}

/** Line numbers (1-based, blank lines counted) of a tasks file that are not tasks: kept, but skipped. */
export function unreadableTaskLines(path: string): number[] {
  return readJsonl(path, taskLine).items.flatMap((i) => (i.ok ? [] : [i.n]));
}

/** Tasks in file order; a missing file is an empty list and unreadable lines are skipped. */
export function readTasks(path: string): Task[] {
  return tasksOf(readLines(path));
}

/**
 * One read-modify-write of the tasks under the file's lock: `change` edits the tasks in place and
 * returns new ones to append; the file is written only when it says something changed.
 */
export function editTasks<T>(
  path: string,
  change: (tasks: Task[]) => { result: T; added: Task[]; changed: boolean },
): T {
  return mutateTaskLines(path, (lines) => {
    const out = change(tasksOf(lines));
    for (const task of out.added) lines.push({ task, extra: {} });
    return { result: out.result, changed: out.changed || out.added.length > 0 };
  });
}

/** Runs one read-modify-write of the tasks file under its cross-process lock. */
export function mutateTaskLines<T>(
  path: string,
  change: (lines: TaskLine[]) => { result: T; changed: boolean },
): T {
  return withFileLock(path, () => {
    const lines = readLines(path);
    const { result, changed } = change(lines);
    if (changed) writeFileAtomicSync(path, tasksFileText(lines));
    return result;
  });
}
