import { RalphError } from '../../errors.ts';
import { writeFileAtomicSync } from '../io/atomic-write.ts';
import { withFileLock } from '../io/file-lock.ts';
import { readOptional } from '../io/read-optional.ts';
import { readTextCached } from '../io/stat-cache.ts';
import { findTask, type Task, type TaskStatus } from './task.ts';

// `tasks.source: beads`: the issues of a beads tracker (`bd`, or beads-rust's `br`) read from the
// JSONL file it keeps in git (`.beads/issues.jsonl`), as Ralph's tasks. bd imports that file again
// when it is newer than its database, so a status Ralph writes there reaches `bd list` too.

/** Where the beads issues are and which of them are the run's. */
export interface BeadsSource {
  file: string;
  /** Only this epic's children (`parent-child` dependencies, or ids `<epic>.N`). */
  epic?: string | undefined;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const invalid = (file: string, line: number, why: string) =>
  new RalphError(
    'tasks_unreadable',
    `${file}:${line}: ${why}; each line of a beads export is {"id", "title", "status", …} (or set tasks.source: file)`,
  );

/** One line's issue, checked: an id and a title are needed. */
function issueOf(text: string, file: string, line: number): Json & { id: string; title: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalid(file, line, `not JSON (${(error as Error).message})`);
  }
  if (!isObject(raw)) throw invalid(file, line, 'not an object');
  if (typeof raw.id !== 'string' || raw.id.trim() === '') throw invalid(file, line, 'no "id"');
  if (typeof raw.title !== 'string') throw invalid(file, line, `issue ${raw.id} has no "title"`);
  return raw as Json & { id: string; title: string };
}

/** The issues of a beads JSONL text, in file order, blank lines skipped (pure). */
export function parseBeads(text: string, file: string): Array<Json & { id: string; title: string }> {
  const issues: Array<Json & { id: string; title: string }> = [];
  text.split('\n').forEach((line, n) => {
    if (line.trim() !== '') issues.push(issueOf(line, file, n + 1));
  });
  return issues;
}

const dependencies = (issue: Json): Json[] =>
  Array.isArray(issue.dependencies) ? issue.dependencies.filter(isObject) : [];

/** Whether `issue` is a child of `epic`: a `parent-child` dependency on it, or a dotted child id. */
export function isChildOf(issue: Json & { id: string }, epic: string): boolean {
  return (
    issue.id.startsWith(`${epic}.`) ||
    dependencies(issue).some((d) => d.type === 'parent-child' && d.depends_on_id === epic)
  );
}

// beads' statuses: open, in_progress, blocked (waits on something outside the tracker), closed;
// a deleted issue is a tombstone. Ralph has no "blocked": such an issue stays open.
const STATUS: Record<string, TaskStatus> = { open: 'open', in_progress: 'in_progress', blocked: 'open' };

/** An issue as a task (pure): beads' priority 0 (critical) … 4 is Ralph's 1 … 5. */
export function beadsTask(issue: Json & { id: string; title: string }): Task {
  const priority =
    typeof issue.priority === 'number' && Number.isInteger(issue.priority) ? issue.priority : 2;
  const criteria = typeof issue.acceptance_criteria === 'string' ? issue.acceptance_criteria.trim() : '';
  const text = typeof issue.description === 'string' ? issue.description.trim() : '';
  const description = [text, criteria ? `Acceptance criteria:\n${criteria}` : '']
    .filter(Boolean)
    .join('\n\n');
  return {
    id: issue.id,
    title: issue.title,
    ...(description ? { description } : {}),
    status: STATUS[String(issue.status)] ?? 'closed',
    priority: Math.min(5, Math.max(1, priority + 1)),
    blocked_by: dependencies(issue)
      .filter((d) => d.type === 'blocks' && typeof d.depends_on_id === 'string')
      .map((d) => d.depends_on_id as string),
    created: typeof issue.created_at === 'string' ? issue.created_at : '',
  };
}

/** The run's issues (pure): no tombstones, no epics (they hold work, they are not work), the epic's children only. */
export function beadsTasks(text: string, source: BeadsSource): Task[] {
  return parseBeads(text, source.file)
    .filter((i) => i.status !== 'tombstone' && i.issue_type !== 'epic')
    .filter((i) => source.epic === undefined || isChildOf(i, source.epic))
    .map(beadsTask);
}

const missing = (path: string) =>
  new RalphError(
    'tasks_unreadable',
    `${path} is missing: tasks.source is beads; run \`bd init\` (or \`bd export\`), or set tasks.beads.file to the export`,
  );

/** The beads issues of `source` as tasks, read again when the file changed; missing is an error. */
export function readBeadsTasks(source: BeadsSource): Task[] {
  let read: ReturnType<typeof readTextCached>;
  try {
    read = readTextCached(source.file);
  } catch (error) {
    throw new RalphError('tasks_unreadable', `cannot read ${source.file}: ${(error as Error).message}`);
  }
  if (!('text' in read)) throw missing(source.file);
  return beadsTasks(read.text, source);
}

/**
 * Sets an issue's status in the export (`ralph tools task start/close/reopen`), under the file's
 * lock; every other line stays byte for byte. Returns the issue as a task after the change.
 */
export function setBeadsStatus(
  source: BeadsSource,
  id: string,
  status: 'open' | 'in_progress' | 'closed',
  now: Date = new Date(),
): Task {
  return withFileLock(source.file, () => {
    // Read again under the lock, not from the cache: bd or the agent may have written it a moment ago.
    const text = readOptional(source.file, 'throw');
    if (text === undefined) throw missing(source.file);
    findTask(beadsTasks(text, source), id, source.file);
    const lines = text.split('\n');
    const n = lines.findIndex((l) => l.trim() !== '' && issueOf(l, source.file, 0).id === id);
    const issue = issueOf(lines[n] as string, source.file, n + 1);
    if (issue.status !== status) {
      const stamp = now.toISOString();
      const { closed_at: _closed, close_reason: _reason, ...rest } = issue;
      const changed =
        status === 'closed'
          ? {
              ...rest,
              status,
              updated_at: stamp,
              closed_at: stamp,
              close_reason: 'closed by ralph tools task close',
            }
          : { ...rest, status, updated_at: stamp };
      lines[n] = JSON.stringify(changed);
      writeFileAtomicSync(source.file, lines.join('\n'));
    }
    return findTask(beadsTasks(lines.join('\n'), source), id, source.file);
  });
}
