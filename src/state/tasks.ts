import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RalphError } from '../errors.ts';
import { writeFileAtomicSync } from './io/atomic-write.ts';
import { withFileLock } from './io/file-lock.ts';
import { anyJson, type LineParser, parseJsonl, readJsonl } from './io/jsonl.ts';

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

const DEFAULT_PRIORITY = 3;

// A parsed line: a task plus the fields we do not know (kept on rewrite), or a line we could not read.
type Line = { task: Task; extra: Record<string, unknown> } | { raw: string };

function isStatus(value: unknown): value is TaskStatus {
  return (TASK_STATUSES as readonly unknown[]).includes(value);
}

const KNOWN = new Set([
  'id',
  'title',
  'description',
  'key',
  'status',
  'priority',
  'blocked_by',
  'loop_id',
  'created',
  'started',
  'closed',
  'reason',
  'labels',
  'issue',
]);

function parseIssue(v: unknown): TaskIssue | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.repo !== 'string' || !Number.isInteger(o.number) || typeof o.url !== 'string')
    return undefined;
  const issue: TaskIssue = { repo: o.repo, number: o.number as number, url: o.url };
  if (typeof o.closed_at === 'string') issue.closed_at = o.closed_at;
  return issue;
}

/** Reads a task line leniently: id and title are required, the rest falls back to defaults. */
function parseLine(raw: string): Line {
  const parsed = anyJson(raw);
  if ('error' in parsed) return { raw };
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { raw };
  const o = value as Record<string, unknown>;
  if (typeof o.id !== 'string' || !o.id || typeof o.title !== 'string') return { raw };
  if (o.status !== undefined && !isStatus(o.status)) return { raw };
  const priority = Number(o.priority);
  const task: Task = {
    id: o.id,
    title: o.title,
    status: isStatus(o.status) ? o.status : 'open',
    priority: Number.isInteger(priority) && priority >= 1 && priority <= 5 ? priority : DEFAULT_PRIORITY,
    blocked_by: Array.isArray(o.blocked_by) ? o.blocked_by.filter((b) => typeof b === 'string') : [],
    created: typeof o.created === 'string' ? o.created : '',
  };
  for (const field of ['description', 'key', 'loop_id', 'started', 'closed', 'reason'] as const) {
    const v = o[field];
    if (typeof v === 'string') task[field] = v;
  }
  if (Array.isArray(o.labels)) task.labels = o.labels.filter((l) => typeof l === 'string');
  const issue = parseIssue(o.issue);
  if (issue) task.issue = issue;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!KNOWN.has(k) || (k === 'issue' && !issue)) extra[k] = v;
  return { task, extra };
}

function readLines(path: string): Line[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new RalphError('tasks_unreadable', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return linesOf(text);
}

const taskLine: LineParser<Exclude<Line, { raw: string }>> = (raw) => {
  const line = parseLine(raw);
  return 'raw' in line ? { error: 'not a task' } : { value: line };
};

/** Every non-blank line in order; a line that is not a task is kept as it is (a rewrite preserves it). */
function linesOf(text: string): Line[] {
  return parseJsonl(text, taskLine).items.map((i) => (i.ok ? i.value : { raw: i.line }));
}

/** Line numbers (1-based, blank lines counted) of a tasks file that are not tasks: kept, but skipped. */
export function unreadableTaskLines(path: string): number[] {
  return readJsonl(path, taskLine).items.flatMap((i) => (i.ok ? [] : [i.n]));
}

/** The tasks of a tasks.jsonl text, in order; unreadable lines are skipped (pure: the fuzz target). */
export function parseTasksText(text: string): Task[] {
  return tasksOf(linesOf(text));
}

function writeLines(path: string, lines: Line[]): void {
  const text = lines.map((l) => ('raw' in l ? l.raw : JSON.stringify({ ...l.extra, ...l.task }))).join('\n');
  writeFileAtomicSync(path, text === '' ? '' : `${text}\n`);
}

function tasksOf(lines: Line[]): Task[] {
  return lines.flatMap((l) => ('task' in l ? [l.task] : []));
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
  return mutate(path, (lines) => {
    const out = change(tasksOf(lines));
    for (const task of out.added) lines.push({ task, extra: {} });
    return { result: out.result, changed: out.changed || out.added.length > 0 };
  });
}

/** Runs one read-modify-write of the tasks file under its cross-process lock. */
function mutate<T>(path: string, change: (lines: Line[]) => { result: T; changed: boolean }): T {
  return withFileLock(path, () => {
    const lines = readLines(path);
    const { result, changed } = change(lines);
    if (changed) writeLines(path, lines);
    return result;
  });
}

function parsePriority(value: number | string | undefined): number {
  if (value === undefined) return DEFAULT_PRIORITY;
  const n = typeof value === 'number' ? value : Number(value.trim() === '' ? Number.NaN : value);
  if (!Number.isInteger(n) || n < 1 || n > 5) {
    throw new RalphError(
      'task_invalid',
      `priority must be a whole number from 1 (most urgent) to 5, got "${value}"`,
    );
  }
  return n;
}

/** A `task-<8 hex>` id not in `existing`. */
export function newTaskId(existing: ReadonlySet<string>): string {
  for (;;) {
    const id = `task-${randomBytes(4).toString('hex')}`;
    if (!existing.has(id)) return id;
  }
}

export function taskTimestamp(options: TaskOptions): string {
  return (options.now?.() ?? new Date()).toISOString();
}

function buildTask(path: string, lines: Line[], input: NewTask, options: TaskOptions): Task {
  const title = input.title.trim();
  if (!title) throw new RalphError('task_invalid', 'a task needs a non-empty title');
  const priority = parsePriority(input.priority);
  const tasks = tasksOf(lines);
  const ids = new Set(tasks.map((t) => t.id));
  const blockedBy = [...new Set((input.blocked_by ?? []).map((b) => b.trim()).filter(Boolean))];
  const unknown = blockedBy.filter((b) => !ids.has(b));
  if (unknown.length > 0) {
    throw new RalphError(
      'task_invalid',
      `blocked_by names unknown task${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} in ${path}; ` +
        'add the blocking tasks first and pass their ids (see `ralph tools task list`)',
    );
  }
  const task: Task = {
    id: newTaskId(ids),
    title,
    status: 'open',
    priority,
    blocked_by: blockedBy,
    created: taskTimestamp(options),
  };
  const description = input.description?.trim();
  if (description) task.description = description;
  const key = input.key?.trim();
  if (key) task.key = key;
  if (options.loopId) task.loop_id = options.loopId;
  return task;
}

/** Appends a new open task and returns it. */
export function addTask(path: string, input: NewTask, options: TaskOptions = {}): Task {
  return mutate(path, (lines) => {
    const task = buildTask(path, lines, input, options);
    lines.push({ task, extra: {} });
    return { result: task, changed: true };
  });
}

/** Returns the task with this key if one exists (in any status), else adds it: safe to repeat. */
export function ensureTask(
  path: string,
  key: string,
  input: Omit<NewTask, 'key'>,
  options: TaskOptions = {},
): Task {
  const k = key.trim();
  if (!k) throw new RalphError('task_invalid', 'ensure needs a non-empty key');
  return mutate(path, (lines) => {
    const existing = tasksOf(lines).find((t) => t.key === k);
    if (existing) return { result: existing, changed: false };
    const task = buildTask(path, lines, { ...input, key: k }, options);
    lines.push({ task, extra: {} });
    return { result: task, changed: true };
  });
}

function update(path: string, id: string, change: (task: Task) => boolean): Task {
  return mutate(path, (lines) => {
    const task = findTask(tasksOf(lines), id, path);
    return { result: task, changed: change(task) };
  });
}

/** open → in_progress (already in progress: unchanged). A closed or failed task must be reopened first. */
export function startTask(path: string, id: string, options: TaskOptions = {}): Task {
  return update(path, id, (task) => {
    if (task.status === 'in_progress') return false;
    if (task.status !== 'open') {
      throw new RalphError(
        'task_invalid',
        `task ${id} is ${task.status}; reopen it first with \`ralph tools task reopen ${id}\``,
      );
    }
    task.status = 'in_progress';
    task.started = taskTimestamp(options);
    return true;
  });
}

/** Marks a task closed (done); repeating it changes nothing. */
export function closeTask(path: string, id: string, options: TaskOptions = {}): Task {
  return update(path, id, (task) => {
    if (task.status === 'closed') return false;
    task.status = 'closed';
    task.closed = taskTimestamp(options);
    delete task.reason;
    return true;
  });
}

/** Marks a task failed, with an optional reason; repeating it only updates the reason. */
export function failTask(path: string, id: string, reason?: string, options: TaskOptions = {}): Task {
  return update(path, id, (task) => {
    const why = reason?.trim();
    if (task.status === 'failed' && (!why || why === task.reason)) return false;
    if (task.status !== 'failed') {
      task.status = 'failed';
      task.closed = taskTimestamp(options);
    }
    if (why) task.reason = why;
    return true;
  });
}

/** Back to open (from any status), clearing started/closed/reason. */
export function reopenTask(path: string, id: string): Task {
  return update(path, id, (task) => {
    if (task.status === 'open') return false;
    task.status = 'open';
    delete task.started;
    delete task.closed;
    delete task.reason;
    return true;
  });
}

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
