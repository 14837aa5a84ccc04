import { anyJson, type LineParser, parseJsonl } from '../io/jsonl.ts';
import { DEFAULT_PRIORITY, TASK_STATUSES, type Task, type TaskIssue, type TaskStatus } from './task.ts';

/** A parsed line: a task plus the fields we do not know (kept on rewrite), or a line we could not read. */
export type TaskLine = { task: Task; extra: Record<string, unknown> } | { raw: string };

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
function parseLine(raw: string): TaskLine {
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

/** A line that holds a task; any other line is an error (kept as it is by a rewrite). */
export const taskLine: LineParser<Exclude<TaskLine, { raw: string }>> = (raw) => {
  const line = parseLine(raw);
  return 'raw' in line ? { error: 'not a task' } : { value: line };
};

/** Every non-blank line in order; a line that is not a task is kept as it is (a rewrite preserves it). */
export function linesOf(text: string): TaskLine[] {
  return parseJsonl(text, taskLine).items.map((i) => (i.ok ? i.value : { raw: i.line }));
}

/** The tasks among the lines, in order. */
export function tasksOf(lines: TaskLine[]): Task[] {
  return lines.flatMap((l) => ('task' in l ? [l.task] : []));
}

/** The tasks of a tasks.jsonl text, in order; unreadable lines are skipped (pure: the fuzz target). */
export function parseTasksText(text: string): Task[] {
  return tasksOf(linesOf(text));
}

/** The text of a tasks file holding these lines: a task keeps the unknown fields it was read with. */
export function tasksFileText(lines: TaskLine[]): string {
  const text = lines.map((l) => ('raw' in l ? l.raw : JSON.stringify({ ...l.extra, ...l.task }))).join('\n');
  return text === '' ? '' : `${text}\n`;
}
