import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  beadsTasks,
  isChildOf,
  readBeadsTasks,
  setBeadsStatus,
} from '../../../../src/state/tasks/beads-issues.ts';
import { readyTasks } from '../../../../src/state/tasks/task.ts';
import { beadsSourceOf, isBeadsIssue, readAllTasks } from '../../../../src/state/tasks/task-list.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

// Lines as bd writes them to .beads/issues.jsonl (one JSON object per issue, its own keys kept).
const issue = (fields: Record<string, unknown>) =>
  JSON.stringify({
    issue_type: 'task',
    priority: 2,
    status: 'open',
    created_at: '2026-11-01T10:00:00Z',
    updated_at: '2026-11-01T10:00:00Z',
    labels: ['ralph'],
    ...fields,
  });

const EXPORT = [
  issue({ id: 'p-epic', title: 'Login', issue_type: 'epic' }),
  issue({
    id: 'p-epic.1',
    title: 'Login form',
    priority: 1,
    description: 'A form.',
    acceptance_criteria: '- shows errors',
  }),
  issue({
    id: 'p-2',
    title: 'Auth API',
    priority: 0,
    dependencies: [{ issue_id: 'p-2', depends_on_id: 'p-epic', type: 'parent-child' }],
  }),
  issue({
    id: 'p-3',
    title: 'Session cookie',
    dependencies: [
      { issue_id: 'p-3', depends_on_id: 'p-epic', type: 'parent-child' },
      { issue_id: 'p-3', depends_on_id: 'p-2', type: 'blocks' },
    ],
  }),
  issue({ id: 'p-4', title: 'Old idea', status: 'tombstone' }),
  issue({ id: 'p-5', title: 'Other work', status: 'in_progress' }),
  issue({ id: 'p-6', title: 'Shipped', status: 'closed', closed_at: '2026-11-02T10:00:00Z' }),
  '',
].join('\n');

describe('beads issues as tasks', () => {
  it('maps status, priority, blocks and the description; epics and tombstones are not tasks', () => {
    const tasks = beadsTasks(EXPORT, { file: 'issues.jsonl' });
    expect(tasks.map((t) => [t.id, t.status, t.priority])).toEqual([
      ['p-epic.1', 'open', 2],
      ['p-2', 'open', 1],
      ['p-3', 'open', 3],
      ['p-5', 'in_progress', 3],
      ['p-6', 'closed', 3],
    ]);
    expect(tasks[0]?.description).toBe('A form.\n\nAcceptance criteria:\n- shows errors');
    expect(tasks.find((t) => t.id === 'p-3')?.blocked_by).toEqual(['p-2']);
    // p-3 waits for p-2; the most urgent ready one comes first.
    expect(readyTasks(tasks).map((t) => t.id)).toEqual(['p-2', 'p-epic.1']);
  });

  it("tasks.beads.epic keeps that epic's children: parent-child dependencies and dotted ids", () => {
    const tasks = beadsTasks(EXPORT, { file: 'issues.jsonl', epic: 'p-epic' });
    expect(tasks.map((t) => t.id)).toEqual(['p-epic.1', 'p-2', 'p-3']);
    expect(isChildOf({ id: 'p-epic2' }, 'p-epic')).toBe(false);
  });

  it('any priority becomes 1…5 and any status one of Ralph’s (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 10 }), fc.string(), (priority, status) => {
        const [task] = beadsTasks(issue({ id: 'x', title: 't', priority, status }), { file: 'f' });
        if (status === 'tombstone') return task === undefined;
        return task !== undefined && task.priority >= 1 && task.priority <= 5;
      }),
    );
  });

  it('a line that is not an issue is an error naming the file and line', () => {
    expect(() =>
      beadsTasks(`${issue({ id: 'a', title: 'a' })}\n{"title": "no id"}\n`, { file: 'b.jsonl' }),
    ).toThrow(/b\.jsonl:2: no "id"/);
    expect(() => beadsTasks('{not json\n', { file: 'b.jsonl' })).toThrow(/b\.jsonl:1: not JSON/);
  });

  it('setBeadsStatus changes that line only, and the tasks file stays beside it', () => {
    const dir = makeWorkspace({ '.beads/issues.jsonl': EXPORT });
    const source = beadsSourceOf({ source: 'beads' }, dir);
    expect(source).toEqual({ file: join(dir, '.beads/issues.jsonl'), epic: undefined });
    const file = source?.file as string;
    const now = new Date('2026-11-29T06:00:00Z');
    expect(setBeadsStatus({ file }, 'p-2', 'in_progress', now).status).toBe('in_progress');
    expect(setBeadsStatus({ file }, 'p-2', 'closed', now).status).toBe('closed');
    const lines = readFileSync(file, 'utf8').split('\n');
    const before = EXPORT.split('\n');
    expect(lines.filter((l, n) => l !== before[n])).toHaveLength(1);
    const changed = JSON.parse(lines[2] as string);
    expect(changed).toMatchObject({ status: 'closed', closed_at: now.toISOString(), labels: ['ralph'] });
    expect(readyTasks(readBeadsTasks({ file })).map((t) => t.id)).toEqual(['p-epic.1', 'p-3']);
    // Reopened: no closed_at left, and the export is as it was apart from the times.
    const reopened = setBeadsStatus({ file }, 'p-2', 'open', now);
    expect(reopened.status).toBe('open');
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[2] as string).closed_at).toBeUndefined();
    expect(() => setBeadsStatus({ file }, 'p-404', 'closed')).toThrow(/no task "p-404"/);
    const files = { tasks: join(dir, '.ralph/agent/tasks.jsonl'), beads: { file } };
    expect(isBeadsIssue(files, 'p-5')).toBe(true);
    expect(isBeadsIssue(files, 'p-epic')).toBe(false);
    expect(readAllTasks(files)).toHaveLength(5);
  });

  it('a missing export says how to make one', () => {
    const dir = makeWorkspace({});
    expect(() => readBeadsTasks({ file: join(dir, '.beads/issues.jsonl') })).toThrow(/bd init/);
    writeFileSync(join(dir, 'x.jsonl'), '');
    expect(readBeadsTasks({ file: join(dir, 'x.jsonl') })).toEqual([]);
  });
});
