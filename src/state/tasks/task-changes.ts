import { randomBytes } from 'node:crypto';
import { RalphError } from '../../errors.ts';
import { DEFAULT_PRIORITY, findTask, type NewTask, type Task, type TaskOptions } from './task.ts';
import { mutateTaskLines } from './task-file.ts';
import { type TaskLine, tasksOf } from './task-line.ts';

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

function buildTask(path: string, lines: TaskLine[], input: NewTask, options: TaskOptions): Task {
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
  return mutateTaskLines(path, (lines) => {
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
  return mutateTaskLines(path, (lines) => {
    const existing = tasksOf(lines).find((t) => t.key === k);
    if (existing) return { result: existing, changed: false };
    const task = buildTask(path, lines, { ...input, key: k }, options);
    lines.push({ task, extra: {} });
    return { result: task, changed: true };
  });
}

function update(path: string, id: string, change: (task: Task) => boolean): Task {
  return mutateTaskLines(path, (lines) => {
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
