import { describe, expect, it } from 'vitest';
import { createParallelLines } from '../../../../src/cli/run/parallel-lines.ts';
import type { ParallelEvent, WorkerView } from '../../../../src/observe/parallel-events.ts';

const worker = (iteration: number): WorkerView => ({
  worker: 'w1',
  task: 'task-0000abcd',
  title: 'first',
  kind: 'task',
  pid: 4242,
  iteration,
  costUsd: 0,
  status: 'running',
});
const progress = (iteration: number): ParallelEvent => ({
  type: 'workers.progress',
  workers: [worker(iteration)],
  costUsd: 0,
  tokens: 0,
});

describe('the console lines of ralph run --parallel', () => {
  it('say a worker progressed once per change of its iteration', () => {
    const lines = createParallelLines();
    expect(lines.format(progress(1), false)).toBe('w1 task-0000abcd: iteration 1 (running)');
    expect(lines.format(progress(1), false)).toBeNull();
    expect(lines.format(progress(2), false)).toBe('w1 task-0000abcd: iteration 2 (running)');
  });

  it('two runs in one process do not share what a worker last showed', () => {
    const first = createParallelLines();
    expect(first.format(progress(1), false)).toBe('w1 task-0000abcd: iteration 1 (running)');
    // A second run (a library caller, or --resume in the same process) with the same task and worker.
    const second = createParallelLines();
    expect(second.format(progress(1), false)).toBe('w1 task-0000abcd: iteration 1 (running)');
    expect(first.format(progress(1), false)).toBeNull();
  });
});
