import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type ParallelEvent, resolveRun, runParallel } from '../../src/index.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import { addTasks, makeParallelWorkspace } from '../helpers/parallel-workspace.ts';
import { pidAlive, waitFor } from '../helpers/workspace.ts';

/** A fake-agent turn: when the prompt names TITLE, write FILE and finish. */
const writes = (title: string, file: string) =>
  `  - when: { prompt: "\\\\*\\\\*${title}\\\\*\\\\*" }\n    do:\n      - write: { path: ${file}, content: "${title}\\n" }\n      - print: LOOP_COMPLETE\n`;

describe('runParallel (library API)', { timeout: 120_000 }, () => {
  it('runs from a resolved run as ralph run --parallel does: the backend adapter, workers from config.parallel', async () => {
    const dir = makeParallelWorkspace(
      `turns:\n${writes('Alpha', 'alpha.txt')}${writes('Beta', 'beta.txt')}`,
      'parallel: 2\n',
    );
    const ids = await addTasks(dir, ['Alpha', 'Beta']);
    const events: ParallelEvent[] = [];
    let closed = false;
    const result = await runParallel({
      workspace: dir,
      ...resolveRun({ cwd: dir }),
      reporters: [
        {
          onEvent: (e) => events.push(e),
          close: () => {
            closed = true;
          },
        },
      ],
    });
    expect(result, result.message).toMatchObject({ exitCode: 0, reason: 'completed' });
    expect(result.state.workers).toBe(2);
    for (const id of ids) expect(result.state.tasks[id]?.state).toBe('merged');
    expect(readFileSync(join(dir, 'alpha.txt'), 'utf8')).toBe('Alpha\n');
    expect(readFileSync(join(dir, 'beta.txt'), 'utf8')).toBe('Beta\n');
    expect(events[0]).toMatchObject({ type: 'parallel.started', workers: 2 });
    expect(events.at(-1)).toMatchObject({ type: 'parallel.finished', merged: 2, total: 2 });
    // Closed once the run has ended, as runLoop closes its reporters.
    expect(closed).toBe(true);
  });
});

describe('runParallel forceSignal (a second Ctrl-C, for an embedder)', { timeout: 120_000 }, () => {
  it('kills every worker at once, before abort() returns, and the run ends interrupted', async () => {
    const dir = makeParallelWorkspace(
      'turns:\n  - do:\n      - hang: true\n',
      '',
      {},
      {
        max_iterations: 3,
        // A long grace: a graceful stop would wait it out for the hanging agents.
        kill_grace_seconds: 60,
      },
    );
    await addTasks(dir, ['Alpha']);
    const force = new AbortController();
    const pids: number[] = [];
    const worktrees: string[] = [];
    const run = runParallel({
      workspace: dir,
      ...resolveRun({ cwd: dir }),
      workers: 1,
      forceSignal: force.signal,
      reporters: [
        {
          onEvent: (e) => {
            if (e.type !== 'worker.started') return;
            pids.push(e.pid);
            worktrees.push(e.worktree);
          },
        },
      ],
    });
    // The worker's agent runs in a group of its own, as with ralph run --parallel's second Ctrl-C:
    // the next run's sweep would end it; this test ends it itself.
    onTestFinished(() => killLeftovers(worktrees));
    await waitFor(() => pids.length === 1, 30_000, 'the worker');
    force.abort();
    // SIGKILLed in the abort: gone within moments, not after the 60 s grace of a graceful stop.
    await waitFor(() => !pidAlive(pids[0] as number), 5_000, 'the worker killed');
    const result = await run;
    expect(result).toMatchObject({ exitCode: 130, reason: 'interrupted' });
  });
});
