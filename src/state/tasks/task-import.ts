import type { Task, TaskOptions } from './task.ts';
import { newTaskId, taskTimestamp } from './task-changes.ts';
import { editTasks } from './task-file.ts';

/** An issue to keep as a task: what the tracker says about it. */
export interface ImportedIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  url: string;
  /** Numbers of the issues that block it (in the same repository). */
  blockedBy: number[];
}

/** What an import did: the tasks it added and the ones it brought up to date. */
export interface ImportResult {
  added: Task[];
  updated: Task[];
  unchanged: number;
}

/** The idempotency key of an issue's task: one task per issue, whatever its status. */
export const issueKey = (repo: string, number: number) => `github:${repo}#${number}`;

const sameList = (a: readonly string[] | undefined, b: readonly string[]) =>
  (a ?? []).length === b.length && (a ?? []).every((x, i) => x === b[i]);

/**
 * Makes each issue of `repo` a task, under one lock. An issue already imported (its key, in any
 * status) adds nothing; while its task is not closed, its title, description, labels and the
 * blockers that come from issues follow the issue (blockers added by hand stay). A blocker is the
 * task of an issue of the same repository ("blocked by #N"); an issue never imported blocks nothing.
 */
export function importIssueTasks(
  path: string,
  repo: string,
  issues: readonly ImportedIssue[],
  options: TaskOptions = {},
): ImportResult {
  return editTasks(path, (tasks) => {
    const byNumber = new Map<number, Task>();
    for (const t of tasks) if (t.issue?.repo === repo) byNumber.set(t.issue.number, t);
    const ids = new Set(tasks.map((t) => t.id));
    const added: Task[] = [];
    // One instant for the batch: its tasks are then ready oldest issue first (compareTasks).
    const created = taskTimestamp(options);
    for (const issue of issues) {
      if (byNumber.has(issue.number)) continue;
      const task: Task = {
        id: newTaskId(ids),
        title: issue.title.trim() || `Issue #${issue.number}`,
        key: issueKey(repo, issue.number),
        status: 'open',
        priority: 3,
        blocked_by: [],
        created,
        labels: [...issue.labels],
        issue: { repo, number: issue.number, url: issue.url },
      };
      if (issue.body.trim()) task.description = issue.body.trim();
      if (options.loopId) task.loop_id = options.loopId;
      ids.add(task.id);
      byNumber.set(issue.number, task);
      added.push(task);
    }
    const fromIssues = new Set([...byNumber.values()].map((t) => t.id));
    const updated: Task[] = [];
    let unchanged = 0;
    for (const issue of issues) {
      const task = byNumber.get(issue.number) as Task;
      const isNew = added.includes(task);
      if (task.status === 'closed' && !isNew) {
        unchanged++;
        continue;
      }
      const blockers = issue.blockedBy.flatMap((n) => {
        const b = byNumber.get(n);
        return b && b.id !== task.id ? [b.id] : [];
      });
      const blockedBy = [...new Set([...task.blocked_by.filter((b) => !fromIssues.has(b)), ...blockers])];
      const title = issue.title.trim() || `Issue #${issue.number}`;
      const description = issue.body.trim() || undefined;
      const same =
        task.title === title &&
        task.description === description &&
        sameList(task.labels, issue.labels) &&
        sameList(task.blocked_by, blockedBy);
      if (same) {
        if (!isNew) unchanged++;
        continue;
      }
      task.title = title;
      if (description) task.description = description;
      else delete task.description;
      task.labels = [...issue.labels];
      task.blocked_by = blockedBy;
      if (!isNew) updated.push(task);
    }
    return { result: { added, updated, unchanged }, added, changed: updated.length > 0 };
  });
}

/** Records that Ralph commented on and closed the issue of task `id` (so it is done once). */
export function markIssueClosed(path: string, id: string, options: TaskOptions = {}): void {
  editTasks(path, (tasks) => {
    const task = tasks.find((t) => t.id === id);
    if (!task?.issue || task.issue.closed_at) return { result: undefined, added: [], changed: false };
    task.issue.closed_at = taskTimestamp(options);
    return { result: undefined, added: [], changed: true };
  });
}
