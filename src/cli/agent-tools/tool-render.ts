import type { Skill } from '../../skills/skill-registry.ts';
import type { MemoryEntry } from '../../state/memories/memory.ts';
import type { Task } from '../../state/tasks/task.ts';
import { clip, columns, padColumns } from '../../tui/text-fit.ts';
import { type Format, ids, json } from './tool-options.ts';

// How `ralph tools …` prints tasks and memories for people (loaded by the commands that print,
// so `ralph emit` and the run's start never load the text-width code).

/** Pads every column but the last to a common width; cells are kept on one line. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows].map((r) => r.map((c) => c.replace(/\s*\n\s*/g, ' ⏎ ')));
  const widths = header.map((_, i) => Math.max(...all.map((r) => columns(r[i] ?? ''))));
  return all
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : padColumns(c, widths[i] ?? 0))).join('  '))
    .map((line) => line.trimEnd())
    .join('\n')
    .concat('\n');
}

const truncate = (text: string, max: number) => clip(text.replace(/\s*\n\s*/g, ' ⏎ '), max);

export function renderTasks(tasks: Task[], format: Format, empty: string): string {
  if (format === 'json') return json(tasks);
  if (format === 'quiet') return ids(tasks);
  if (tasks.length === 0) return `${empty}\n`;
  return table(
    ['ID', 'STATUS', 'PRI', 'TITLE', 'BLOCKED BY'],
    tasks.map((t) => [t.id, t.status, String(t.priority), truncate(t.title, 70), t.blocked_by.join(',')]),
  );
}

export function renderTask(task: Task, format: Format): string {
  if (format === 'json') return json(task);
  if (format === 'quiet') return ids([task]);
  const rows: [string, string | undefined][] = [
    ['id', task.id],
    ['title', task.title],
    ['status', task.status],
    ['priority', String(task.priority)],
    ['key', task.key],
    ['blocked_by', task.blocked_by.length > 0 ? task.blocked_by.join(', ') : undefined],
    ['loop_id', task.loop_id],
    ['created', task.created],
    ['started', task.started],
    ['closed', task.closed],
    ['reason', task.reason],
    ['labels', task.labels?.length ? task.labels.join(', ') : undefined],
    [
      'issue',
      task.issue
        ? `#${task.issue.number} ${task.issue.url}${task.issue.closed_at ? ' (closed by Ralph)' : ''}`
        : undefined,
    ],
    ['description', task.description],
  ];
  const shown = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== '');
  const width = Math.max(...shown.map(([k]) => k.length));
  return `${shown.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v}`).join('\n')}\n`;
}

export function renderMemories(entries: MemoryEntry[], format: Format, empty: string): string {
  if (format === 'json') return json(entries);
  if (format === 'quiet') return ids(entries);
  if (entries.length === 0) return `${empty}\n`;
  return table(
    ['ID', 'TYPE', 'TAGS', 'CREATED', 'CONTENT'],
    entries.map((e) => [e.id, e.type, e.tags.join(','), e.created.slice(0, 10), truncate(e.content, 70)]),
  );
}

/** The skills as a table; none: where they were looked for, or how to configure them. */
export function renderSkills(skills: readonly Skill[], dirs: readonly string[]): string {
  if (skills.length === 0)
    return dirs.length === 0
      ? 'no skills: add `skills: {dirs: [DIR]}` to ralph.yml\n'
      : `no skills in ${dirs.join(', ')}\n`;
  return table(
    ['NAME', 'FILE', 'DESCRIPTION'],
    skills.map((s) => [s.name, s.path, truncate(s.description || '(no description)', 70)]),
  );
}
