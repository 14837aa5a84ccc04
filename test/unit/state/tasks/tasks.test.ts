import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RalphError } from '../../../../src/errors.ts';
import { openTasks, readyTasks, TASK_STATUSES, type Task } from '../../../../src/state/tasks/task.ts';
import {
  addTask,
  closeTask,
  ensureTask,
  failTask,
  reopenTask,
  startTask,
} from '../../../../src/state/tasks/task-changes.ts';
import { readTasks } from '../../../../src/state/tasks/task-file.ts';
import { makeWorkspace } from '../../../helpers/workspace.ts';

const tasksFile = () => join(makeWorkspace(), '.ralph', 'agent', 'tasks.jsonl');
let tick = 0;
// A clock that advances one second per call, so created/started/closed are distinct and ordered.
const clock = () => new Date(Date.UTC(2026, 10, 21, 6, 0, tick++));

describe('task file', () => {
  it('reads a missing file as no tasks', () => {
    expect(readTasks(tasksFile())).toEqual([]);
  });

  it('adds tasks as one JSON line each, with the contract fields', () => {
    const file = tasksFile();
    const a = addTask(
      file,
      { title: ' Write the parser ', description: 'lenient', priority: 2 },
      { loopId: 'run-1' },
    );
    expect(a).toMatchObject({
      title: 'Write the parser',
      description: 'lenient',
      status: 'open',
      priority: 2,
      blocked_by: [],
      loop_id: 'run-1',
    });
    expect(a.id).toMatch(/^task-[0-9a-f]{8}$/);
    expect(a.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const b = addTask(file, { title: 'Test it', priority: '1', blocked_by: [a.id] });
    expect(b.loop_id).toBeUndefined();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([a.id, b.id]);
    expect(readTasks(file)).toEqual([a, b]);
  });

  it('validates priority, title and blockers with actionable errors', () => {
    const file = tasksFile();
    expect(() => addTask(file, { title: 'x', priority: 6 })).toThrow(
      /priority must be a whole number from 1/,
    );
    expect(() => addTask(file, { title: 'x', priority: 'high' })).toThrow(RalphError);
    expect(() => addTask(file, { title: 'x', priority: 2.5 })).toThrow(RalphError);
    expect(() => addTask(file, { title: '   ' })).toThrow(/non-empty title/);
    expect(() => addTask(file, { title: 'x', blocked_by: ['task-00000000'] })).toThrow(
      /unknown task task-00000000.*ralph tools task list/,
    );
    expect(readTasks(file)).toEqual([]);
  });

  it('ensure is idempotent by key, whatever the status', () => {
    const file = tasksFile();
    const first = ensureTask(file, 'build', { title: 'Build it' });
    expect(first.key).toBe('build');
    expect(ensureTask(file, 'build', { title: 'Another title', priority: 1 })).toEqual(first);
    closeTask(file, first.id);
    expect(ensureTask(file, 'build', { title: 'Build it' }).id).toBe(first.id);
    expect(readTasks(file)).toHaveLength(1);
    expect(ensureTask(file, 'test', { title: 'Test it' }).id).not.toBe(first.id);
    expect(() => ensureTask(file, ' ', { title: 'x' })).toThrow(/non-empty key/);
  });

  it('moves through start, close, fail and reopen with timestamps', () => {
    const file = tasksFile();
    const t = addTask(file, { title: 'Do it' }, { now: clock });
    const started = startTask(file, t.id, { now: clock });
    expect(started.status).toBe('in_progress');
    expect(started.started! > t.created).toBe(true);
    expect(startTask(file, t.id)).toEqual(started); // idempotent
    const closed = closeTask(file, t.id, { now: clock });
    expect(closed).toMatchObject({ status: 'closed', started: started.started });
    expect(closed.closed! > started.started!).toBe(true);
    expect(() => startTask(file, t.id)).toThrow(`reopen it first with \`ralph tools task reopen ${t.id}\``);
    const reopened = reopenTask(file, t.id);
    expect(reopened.status).toBe('open');
    expect(reopened.started).toBeUndefined();
    expect(reopened.closed).toBeUndefined();
    const failed = failTask(file, t.id, 'tests keep timing out');
    expect(failed).toMatchObject({ status: 'failed', reason: 'tests keep timing out' });
    expect(readTasks(file)[0]).toEqual(failed);
    expect(reopenTask(file, t.id).reason).toBeUndefined();
  });

  it('names the way to find ids when an id is unknown', () => {
    const file = tasksFile();
    addTask(file, { title: 'x' });
    for (const op of [startTask, closeTask, reopenTask, (p: string, id: string) => failTask(p, id)]) {
      expect(() => op(file, 'task-deadbeef')).toThrow(/no task "task-deadbeef".*ralph tools task list/);
    }
  });

  it('skips malformed lines when reading and keeps them, and unknown fields, on rewrite', () => {
    const file = tasksFile();
    const good = { id: 'task-00000001', title: 'Hand written', extra: { x: 1 } };
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      [
        'not json at all',
        JSON.stringify(good),
        '{"id":"task-00000002","title":"bad status","status":"done"}',
        '[1,2]',
        '',
        '{"id":"task-00000003","title":"windows line","status":"closed","priority":9}\r',
      ].join('\n'),
    );
    const tasks = readTasks(file);
    expect(tasks.map((t) => t.id)).toEqual(['task-00000001', 'task-00000003']);
    expect(tasks[0]).toMatchObject({ status: 'open', priority: 3, blocked_by: [], created: '' });
    expect(tasks[1]).toMatchObject({ status: 'closed', priority: 3 });
    const added = addTask(file, { title: 'new', blocked_by: ['task-00000001'] });
    closeTask(file, 'task-00000001');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('not json at all');
    expect(JSON.parse(lines[1]!)).toMatchObject({ ...good, status: 'closed' });
    expect(lines[2]).toBe('{"id":"task-00000002","title":"bad status","status":"done"}');
    expect(lines[3]).toBe('[1,2]');
    expect(JSON.parse(lines.at(-1)!).id).toBe(added.id);
    expect(readyTasks(readTasks(file)).map((t) => t.id)).toEqual([added.id]);
  });

  it('openTasks keeps open and in-progress tasks', () => {
    const file = tasksFile();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((title) => addTask(file, { title }));
    startTask(file, b!.id);
    closeTask(file, c!.id);
    failTask(file, d!.id);
    expect(openTasks(readTasks(file)).map((t) => t.title)).toEqual([a!.title, b!.title]);
  });
});

describe('readyTasks', () => {
  const task = (id: string, over: Partial<Task> = {}): Task => ({
    id,
    title: id,
    status: 'open',
    priority: 3,
    blocked_by: [],
    created: '2026-01-01T00:00:00.000Z',
    ...over,
  });

  it('needs every blocker closed, sorts by priority then created', () => {
    const tasks = [
      task('a', { status: 'closed' }),
      task('b', { status: 'failed' }),
      task('c', { blocked_by: ['a'], priority: 4 }),
      task('d', { blocked_by: ['a', 'b'] }),
      task('e', { blocked_by: ['missing'] }),
      task('f', { priority: 4, created: '2025-12-31T00:00:00.000Z' }),
      task('g', { priority: 1, status: 'in_progress' }),
      task('h', { priority: 2 }),
    ];
    expect(readyTasks(tasks).map((t) => t.id)).toEqual(['h', 'f', 'c']);
  });

  it('issues imported in one instant are ready oldest issue first, whatever their random ids', () => {
    const issue = (number: number) => ({
      repo: 'o/r',
      number,
      url: `https://github.com/o/r/issues/${number}`,
    });
    const tasks = [task('task-ffff', { issue: issue(1) }), task('task-0000', { issue: issue(3) })];
    expect(readyTasks(tasks).map((t) => t.issue?.number)).toEqual([1, 3]);
  });

  const taskList = fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 15 }).chain((nums) =>
    fc.tuple(
      ...nums.map((n) =>
        fc.record({
          id: fc.constant(`task-${n}`),
          title: fc.constant(`t${n}`),
          status: fc.constantFrom(...TASK_STATUSES),
          priority: fc.integer({ min: 1, max: 5 }),
          // Blockers among the possible ids, some of which do not exist.
          blocked_by: fc.uniqueArray(
            fc.integer({ min: 0, max: 30 }).map((b) => `task-${b}`),
            { maxLength: 3 },
          ),
          created: fc
            .integer({ min: 0, max: 1e6 })
            .map((s) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString()),
        }),
      ),
    ),
  );

  it('property: exactly the open tasks whose blockers all exist and are closed, sorted', () => {
    fc.assert(
      fc.property(taskList, (tasks: Task[]) => {
        const ready = readyTasks(tasks);
        const byId = new Map(tasks.map((t) => [t.id, t]));
        const expected = tasks.filter(
          (t) => t.status === 'open' && t.blocked_by.every((b) => byId.get(b)?.status === 'closed'),
        );
        expect(new Set(ready.map((t) => t.id))).toEqual(new Set(expected.map((t) => t.id)));
        expect(ready).toHaveLength(expected.length);
        for (const t of ready) {
          expect(t.status).toBe('open');
          for (const b of t.blocked_by) expect(byId.get(b)?.status).toBe('closed');
        }
        for (let i = 1; i < ready.length; i++) {
          const [p, c] = [ready[i - 1]!, ready[i]!];
          expect(p.priority < c.priority || (p.priority === c.priority && p.created <= c.created)).toBe(true);
        }
      }),
    );
  });
});
