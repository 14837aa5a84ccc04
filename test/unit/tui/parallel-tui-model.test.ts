import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ParallelEvent } from '../../../src/observe/parallel-events.ts';
import { parallelHeader, queueLines, slotLines, slotRow } from '../../../src/tui/parallel-layout.ts';
import {
  addLines,
  emptyParallelModel,
  MAX_PARALLEL_EVENTS,
  type ParallelInput,
  reduceParallel,
  totalTasks,
} from '../../../src/tui/parallel-model.ts';

const limits = { maxCostUsd: 5, maxTokens: undefined, maxRuntimeMs: undefined };
const started: ParallelEvent = {
  type: 'parallel.started',
  id: 'par-1',
  target: 'main',
  workers: 2,
  source: 'tasks',
  tasks: 3,
  resumed: false,
};
const view = (worker: string, task: string | null, iteration = 1) => ({
  worker,
  task,
  title: task ? `title of ${task}` : null,
  kind: task ? ('task' as const) : null,
  pid: task ? 42 : null,
  iteration,
  costUsd: 0.5,
  status: task ? 'running' : 'idle',
});

/** Feeds real coordinator events (typed as src/parallel has them: the TUI's input must accept them). */
function step(m: ReturnType<typeof emptyParallelModel>, e: ParallelEvent): void {
  reduceParallel(m, e, 0);
}

function feed(events: ParallelEvent[], now = 0) {
  const m = emptyParallelModel();
  for (const e of events) reduceParallel(m, e, now);
  return m;
}

describe('parallel TUI model', () => {
  it('shows idle slots at the start, then each worker on its task with iteration and cost', () => {
    const m = feed([started]);
    expect(m.workers.map((w) => slotLines(w))).toEqual([
      ['w1', 'idle'],
      ['w2', 'idle'],
    ]);
    step(m, {
      type: 'workers.progress',
      workers: [view('w1', 't1', 2), view('w2', null)],
      costUsd: 0.5,
      tokens: 900,
    });
    expect(slotLines(m.workers[0] as never)).toEqual([
      'w1',
      'title of t1',
      't1',
      'iteration 2 · running',
      'cost $0.5000',
    ]);
    expect(slotRow(m.workers[1] as never, 40)).toBe('w2  idle');
    const header = parallelHeader(m, limits, 61_000, 200);
    expect(header[0]).toBe('ralph parallel par-1 · into main · 2 workers · tasks 0/3 merged · 1m01s');
    expect(header[1]).toBe('tokens 900 · cost $0.5000 of $5.00 ▓░░░░░░░ 10%');
    expect(header[2]).toBe('running · 1 at work · 0 in the merge queue');
  });

  it('follows a task through the merge queue: queued, merging, conflict, gates, merged', () => {
    const m = feed([
      started,
      {
        type: 'worker.started',
        worker: 'w1',
        task: 't1',
        title: 'One',
        kind: 'task',
        pid: 1,
        worktree: 't1',
        adopted: false,
      },
      { type: 'task.state', task: 't1', title: 'One', state: 'queued' },
      { type: 'task.state', task: 't2', title: 'Two', state: 'queued' },
    ]);
    expect(queueLines(m, 80)).toEqual(['t1 "One" — queued', 't2 "Two" — queued']);
    const steps: [ParallelEvent, string][] = [
      [{ type: 'merge.started', task: 't1', title: 'One' }, 'merging'],
      [{ type: 'merge.conflict', task: 't1', files: ['a.txt'], attempt: 1 }, 'conflict'],
      [{ type: 'merge.gates', task: 't1', phase: 'started' }, 'gates'],
      [{ type: 'merge.gates', task: 't1', phase: 'failed', summary: 'x' }, 'gates failed'],
    ];
    for (const [e, shown] of steps) {
      step(m, e);
      expect(queueLines(m, 80)[0]).toBe(`t1 "One" — ${shown}`);
    }
    step(m, { type: 'merge.merged', task: 't1', title: 'One', commit: 'abc', doneCommit: null });
    step(m, { type: 'task.state', task: 't1', title: 'One', state: 'merged' });
    expect(queueLines(m, 80)).toEqual(['t2 "Two" — queued']);
    expect(m.merged).toBe(1);
    // A task sent back for rework leaves the queue.
    step(m, { type: 'task.state', task: 't2', title: 'Two', state: 'ready' });
    expect(queueLines(m, 80)).toEqual(['(empty)']);
    step(m, {
      type: 'parallel.finished',
      reason: 'completed',
      exitCode: 0,
      merged: 2,
      total: 4,
      message: 'ok',
    });
    expect(totalTasks(m)).toBe(4);
    expect(parallelHeader(m, limits, 0, 200)[2]).toBe('finished: completed');
  });

  it('counts the tasks seen when more appear than were known at the start', () => {
    const m = feed([{ ...started, tasks: 0 } as ParallelEvent]);
    for (const t of ['a', 'b', 'c'])
      step(m, {
        type: 'worker.started',
        worker: 'w1',
        task: t,
        title: t,
        kind: 'task',
        pid: 1,
        worktree: t,
        adopted: false,
      });
    expect(totalTasks(m)).toBe(3);
  });

  it('keeps the events bounded and the queue free of merged tasks, whatever arrives (property)', () => {
    const task = fc.constantFrom('t1', 't2', 't3');
    const event: fc.Arbitrary<ParallelInput> = fc.oneof(
      task.map((t) => ({ type: 'task.state', task: t, title: t, state: 'queued' }) as const),
      task.map((t) => ({ type: 'merge.started', task: t, title: t }) as const),
      task.map((t) => ({ type: 'merge.conflict' as const, task: t, files: ['a.txt'], attempt: 1 })),
      fc.record({
        type: fc.constant('merge.gates' as const),
        task,
        phase: fc.constantFrom('started' as const, 'passed' as const, 'failed' as const),
      }),
      task.map((t) => ({ type: 'merge.merged', task: t, title: t, commit: 'c', doneCommit: null }) as const),
    );
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 60 }),
        fc.array(fc.string(), { maxLength: 300 }),
        (events, lines) => {
          const m = emptyParallelModel();
          for (const e of events) reduceParallel(m, e, 0);
          for (const l of lines) addLines(m, `${l}\nsecond`);
          expect(m.events.length).toBeLessThanOrEqual(MAX_PARALLEL_EVENTS);
          expect(new Set(m.queue.map((q) => q.task)).size).toBe(m.queue.length);
          for (const q of m.queue) expect(m.tasks.get(q.task)?.state).not.toBe('merged');
          // Merged counts each task once, however often its merge is reported.
          expect(m.merged).toBe(
            new Set(events.filter((e) => e.type === 'merge.merged').map((e) => e.task)).size,
          );
        },
      ),
    );
  });
});
