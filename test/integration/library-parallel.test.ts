import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFailed } from 'vitest';
import { type ParallelEvent, type ParallelOptions, resolveRun, runParallel } from '../../src/index.ts';
import { FORCED_STOP_MESSAGE } from '../../src/state/force-stop.ts';
import { loopStateOf } from '../../src/state/loop-state.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
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

/** Each worker's agent writes its pid, leaves a marked grandchild in a group of its own, and hangs. */
const HANGS_LEAVING_A_GRANDCHILD =
  'turns:\n  - do:\n      - run: "echo $PPID > agent.pid"\n      - spawn_grandchild: { seconds: 600, pid_file: gc.pid }\n      - hang: true\n';

/** Starts two workers on two tasks whose agents hang; resolves once both agents wrote their pids. */
async function twoHangingWorkers(stop: Pick<ParallelOptions, 'signal' | 'forceSignal'>) {
  const dir = makeParallelWorkspace(
    HANGS_LEAVING_A_GRANDCHILD,
    '',
    {},
    // A short grace: the graceful stop's own kill of each agent is quick.
    { max_iterations: 3, kill_grace_seconds: 1 },
  );
  await addTasks(dir, ['Alpha', 'Beta']);
  const workers: { pid: number; worktree: string }[] = [];
  const run = runParallel({
    workspace: dir,
    ...resolveRun({ cwd: dir }),
    workers: 2,
    ...stop,
    reporters: [
      {
        onEvent: (e) => {
          if (e.type === 'worker.started')
            workers.push({ pid: e.pid, worktree: join(dir, '.ralph', 'worktrees', e.worktree) });
        },
      },
    ],
  });
  const pidIn = (file: string) => {
    try {
      return Number(readFileSync(file, 'utf8').trim()) || undefined;
    } catch {
      return undefined;
    }
  };
  // Only a failed test leaves processes (the agents and grandchildren carry the mark): this ends them then.
  onTestFailed(() =>
    killLeftovers(
      workers.map((w) => w.worktree),
      workers.map((w) => w.pid),
    ),
  );
  const files = () => workers.flatMap((w) => [join(w.worktree, 'agent.pid'), join(w.worktree, 'gc.pid')]);
  await waitFor(
    () => workers.length === 2 && files().every((f) => pidIn(f) !== undefined),
    60_000,
    'both agents and their grandchildren',
  );
  const pids = [...workers.map((w) => w.pid), ...files().map((f) => pidIn(f) as number)];
  return { run, workers, pids };
}

describe('runParallel forceSignal (a second Ctrl-C, for an embedder)', { timeout: 120_000 }, () => {
  it('kills every worker, its agent group and its marked processes before abort() returns, recorded as a single run records it', async () => {
    const force = new AbortController();
    const { run, workers, pids } = await twoHangingWorkers({ forceSignal: force.signal });
    for (const pid of pids) expect(pidAlive(pid), `pid ${pid} before the stop`).toBe(true);
    force.abort();
    // SIGKILLed in the abort: what is left is at most a zombie its new parent has yet to reap.
    await waitFor(
      () => pids.every((pid) => !pidAlive(pid)),
      2_000,
      'every worker, agent and grandchild gone',
    );
    for (const w of workers) expect(markedProcesses(w.worktree)).toEqual([]);
    const result = await run;
    expect(result).toMatchObject({ exitCode: 130, reason: 'interrupted' });
    for (const w of workers) {
      // Each worker's run is saved as a forced stop, its lock given back: --resume goes on without a takeover.
      expect(loopStateOf(w.worktree)).toMatchObject({
        status: 'interrupted',
        stop_message: FORCED_STOP_MESSAGE,
        exit_code: 130,
      });
      expect(existsSync(join(w.worktree, '.ralph', 'loop.lock'))).toBe(false);
    }
  });

  it('a graceful stop (signal) leaves no agent, grandchild or marked process either', async () => {
    const stop = new AbortController();
    const { run, workers, pids } = await twoHangingWorkers({ signal: stop.signal });
    stop.abort();
    const result = await run;
    expect(result).toMatchObject({ exitCode: 130, reason: 'interrupted' });
    await waitFor(
      () => pids.every((pid) => !pidAlive(pid)),
      2_000,
      'every worker, agent and grandchild gone',
    );
    for (const w of workers) expect(markedProcesses(w.worktree)).toEqual([]);
  });
});
