import { RalphError } from '../../errors.ts';

/** A task's statuses, in the order a task moves through them. */
export const TASK_STATUSES = ['open', 'in_progress', 'closed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** One line of `.ralph/agent/tasks.jsonl` (DESIGN.md §1 "Files"). Timestamps are ISO 8601. */
export interface Task {
  /** `task-<8 hex>`. */
  id: string;
  title: string;
  description?: string;
  /** Idempotency key for `ensure`: at most one task per key. */
  key?: string;
  status: TaskStatus;
  /** 1 (most urgent) … 5. */
  priority: number;
  /** Ids of tasks that must be closed before this one is ready. */
  blocked_by: string[];
  /** `$RALPH_RUN_ID` of the run that created it. */
  loop_id?: string;
  created: string;
  started?: string;
  /** When the task was closed or failed. */
  closed?: string;
  /** Why it failed (`ralph tools task fail --reason`). */
  reason?: string;
  /** Labels of the issue it was imported from. */
  labels?: string[];
  /** The GitHub issue it was imported from (`ralph tools task import --from github`). */
  issue?: TaskIssue;
}

/** Where an imported task came from, and whether Ralph has closed the issue. */
export interface TaskIssue {
  /** `owner/repo`. */
  repo: string;
  number: number;
  url: string;
  /** When Ralph commented and closed the issue after the task was done. */
  closed_at?: string;
}

/** What a caller supplies for a new task. */
export interface NewTask {
  title: string;
  description?: string | undefined;
  key?: string | undefined;
  priority?: number | string | undefined;
  blocked_by?: readonly string[] | undefined;
}

/** Effects of a mutation, injected so tests can pin them. */
export interface TaskOptions {
  now?: () => Date;
  /** Stored as `loop_id` on new tasks (the CLI passes `$RALPH_RUN_ID`). */
  loopId?: string | undefined;
}

/** The priority of a task that names none. */
export const DEFAULT_PRIORITY = 3;

/** Orders by priority (1 first), then creation time, then issue number (imported tasks), then id. */
export function compareTasks(a: Task, b: Task): number {
  return (
    a.priority - b.priority ||
    a.created.localeCompare(b.created) ||
    // Issues imported in the same instant: the older issue (the lower number) first, not a random id.
    (a.issue?.number ?? 0) - (b.issue?.number ?? 0) ||
    a.id.localeCompare(b.id)
  );
}

/**
 * Open tasks whose every blocker is closed (a blocker id missing from the list is not closed),
 * most urgent first.
 */
export function readyTasks(tasks: readonly Task[]): Task[] {
  const status = new Map(tasks.map((t) => [t.id, t.status]));
  return tasks
    .filter((t) => t.status === 'open' && t.blocked_by.every((b) => status.get(b) === 'closed'))
    .sort(compareTasks);
}

/** Tasks still to do: open or in progress, in file order. */
export function openTasks(tasks: readonly Task[]): Task[] {
  return tasks.filter((t) => t.status === 'open' || t.status === 'in_progress');
}

/** The task with this id, or a RalphError naming how to find ids. */
export function findTask(tasks: readonly Task[], id: string, path: string): Task {
  const task = tasks.find((t) => t.id === id);
  if (!task) {
    throw new RalphError(
      'task_not_found',
      `no task "${id}" in ${path}; list the ids with \`ralph tools task list\``,
    );
  }
  return task;
}
