import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.ts';
import { nextWork, settleWorker, stopOf } from '../../../src/parallel/parallel-decide.ts';
import type { SourceTask } from '../../../src/parallel/task-source.ts';
import type { LoopState } from '../../../src/state/loop-state.ts';
import { readClaims, releaseClaim, takeClaim } from '../../../src/state/parallel-claims.ts';
import type { ParallelTask } from '../../../src/state/parallel-files.ts';
import { removeWhenDone } from '../../helpers/workspace.ts';

const STATES = ['ready', 'working', 'queued', 'merging', 'merged', 'needs_review', 'failed'] as const;

const arbTasks = fc.uniqueArray(
  fc.record({ id: fc.stringMatching(/^t[0-9a-f]{3}$/), state: fc.constantFrom(...STATES, undefined) }),
  { selector: (t) => t.id, maxLength: 12 },
);

function taskOf(id: string, state: ParallelTask['state']): ParallelTask {
  return { id, title: id, state, worktree: id, worker: null, attempts: 0, merge_attempts: 0, runs: {} };
}

describe('nextWork', () => {
  it('never gives a task twice, never more than the free slots, never a task that is not ready', () => {
    fc.assert(
      fc.property(
        arbTasks,
        fc.integer({ min: 1, max: 6 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 6 })),
        (tasks, slots, busyN) => {
          const state = {
            tasks: Object.fromEntries(
              tasks.filter((t) => t.state).map((t) => [t.id, taskOf(t.id, t.state as ParallelTask['state'])]),
            ),
          };
          const ready: SourceTask[] = tasks.map((t) => ({ id: t.id, title: t.id, body: '' }));
          const busy = new Set(busyN.map((n) => `w${n}`));
          const work = nextWork(state, ready, busy, slots);
          const free = Array.from({ length: slots }, (_, i) => `w${i + 1}`).filter((w) => !busy.has(w));
          expect(work.length).toBeLessThanOrEqual(free.length);
          expect(new Set(work.map((w) => w.task.id)).size).toBe(work.length);
          expect(new Set(work.map((w) => w.worker)).size).toBe(work.length);
          for (const w of work) {
            expect(free).toContain(w.worker);
            const known = state.tasks[w.task.id];
            if (known) expect(known.state).toBe('ready');
          }
          // Work is not left undone while a slot is free.
          const available =
            Object.values(state.tasks).filter((t) => t.state === 'ready').length +
            ready.filter((r) => !state.tasks[r.id]).length;
          expect(work.length).toBe(Math.min(free.length, available));
        },
      ),
    );
  });

  it('gives a task sent back (with its feedback) before new ones', () => {
    const back = { ...taskOf('old', 'ready'), feedback: 'tests failed' };
    const work = nextWork({ tasks: { old: back } }, [{ id: 'new', title: 'new', body: '' }], new Set(), 1);
    expect(work).toHaveLength(1);
    expect(work[0]?.task.id).toBe('old');
    expect(work[0]?.assignment).toMatchObject({ kind: 'task', feedback: 'tests failed' });
  });
});

describe('settleWorker', () => {
  const state = (status: string, run = 'r2') => ({ run_id: run, status }) as unknown as LoopState;

  it('queues only a run that completed; retries once, then fails; a stop by the coordinator costs no attempt', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('running', 'stopped', 'interrupted', 'nothing'), { maxLength: 6 }),
        (ends) => {
          const t = taskOf('t', 'working');
          for (const end of ends) {
            if (t.state === 'failed') break;
            settleWorker(t, end === 'nothing' ? undefined : state(end), 'r1', false);
            expect(['ready', 'failed']).toContain(t.state);
          }
          expect(t.attempts).toBeLessThanOrEqual(2);
          expect(t.state === 'failed').toBe(ends.length >= 2);
        },
      ),
    );
    const t = taskOf('t', 'working');
    expect(settleWorker(t, state('completed'), 'r1', false)).toEqual({ queue: true, label: 'completed' });
    expect(t.state).toBe('queued');
    const stopped = taskOf('s', 'working');
    settleWorker(stopped, state('stopped'), 'r1', true);
    expect(stopped).toMatchObject({ state: 'ready', attempts: 0 });
    // The old run's "completed" left in the worktree is not this worker's.
    const stale = taskOf('x', 'working');
    expect(settleWorker(stale, state('completed', 'r1'), 'r1', false).queue).toBe(false);
  });
});

describe('stopOf', () => {
  const config = configSchema.parse({
    event_loop: { max_cost_usd: 1, max_tokens: 100, max_runtime_seconds: 10 },
  });
  it('stops on the first shared limit used up, with exit 2', () => {
    expect(stopOf({ costUsd: 0.5, tokens: 10, runtimeSeconds: 3 }, config)).toBeNull();
    expect(stopOf({ costUsd: 0, tokens: 10, runtimeSeconds: 3 }, config)).toMatchObject({
      reason: 'max_cost',
      exitCode: 2,
    });
    expect(stopOf({ costUsd: undefined, tokens: -1, runtimeSeconds: 3 }, config)).toMatchObject({
      reason: 'max_tokens',
    });
    expect(stopOf({ costUsd: undefined, tokens: undefined, runtimeSeconds: 0 }, config)).toMatchObject({
      reason: 'max_runtime',
    });
  });
});

describe('claims', () => {
  it('one claim per task while its process lives; a dead claimant is released', async () => {
    const dir = removeWhenDone(mkdtempSync(join(tmpdir(), 'claims-')));
    expect(takeClaim(dir, 'a', 'w1', process.pid)).toBe(true);
    expect(takeClaim(dir, 'a', 'w2', process.pid)).toBe(false);
    const claim = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8'));
    expect(claim).toMatchObject({ task: 'a', worker: 'w1', pid: process.pid });
    expect(typeof claim.start_time).toBe('string');
    // A claim of a process that is gone.
    const child = spawn('true');
    await new Promise((done) => child.on('exit', done));
    writeFileSync(
      join(dir, 'b.json'),
      JSON.stringify({ task: 'b', worker: 'w1', pid: child.pid, start_time: null }),
    );
    expect(takeClaim(dir, 'b', 'w2', process.pid)).toBe(true);
    expect(
      readClaims(dir)
        .map((c) => `${c.task}:${c.worker}`)
        .sort(),
    ).toEqual(['a:w1', 'b:w2']);
    releaseClaim(dir, 'a');
    expect(takeClaim(dir, 'a', 'w3', process.pid)).toBe(true);
  });
});
