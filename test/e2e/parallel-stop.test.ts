import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFailed } from 'vitest';
import { FORCED_STOP_MESSAGE } from '../../src/state/force-stop.ts';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { addTasks, makeParallelWorkspace } from '../helpers/parallel-workspace.ts';
import { pidAlive, readState, startRalph, waitFor } from '../helpers/workspace.ts';

/**
 * Each worker's agent writes its pid, leaves a marked grandchild in a session of its own, then runs
 * a shell that ignores SIGTERM: a graceful stop waits out the grace for it, so only a force ends it.
 */
const STUBBORN_AGENT =
  'turns:\n  - do:\n' +
  '      - run: "echo $PPID > agent.pid"\n' +
  '      - spawn_grandchild: { seconds: 600, pid_file: gc.pid }\n' +
  `      - run: "trap '' TERM INT; echo $$ > stubborn.pid; exec sleep 600"\n`;

const PID_FILES = ['agent.pid', 'gc.pid', 'stubborn.pid'];

function pidIn(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/** `ralph run --parallel 2` on two tasks; resolves once both workers' agents wrote every pid file. */
async function twoWorkersAtWork(killGraceSeconds: number) {
  const dir = makeParallelWorkspace(
    STUBBORN_AGENT,
    '',
    {},
    { max_iterations: 3, kill_grace_seconds: killGraceSeconds },
  );
  await addTasks(dir, ['Alpha', 'Beta']);
  const run = startRalph(['run', '--parallel', '2', '--no-tui'], dir);
  const worktrees = () => {
    const root = join(dir, '.ralph', 'worktrees');
    return existsSync(root) ? readdirSync(root).map((name) => join(root, name)) : [];
  };
  const files = () => worktrees().flatMap((w) => PID_FILES.map((f) => join(w, f)));
  // What was seen so far: a failed test kills it (the workspace may be gone by then), a passing one never needs to.
  const seen = { worktrees: [] as string[], pids: [] as number[] };
  onTestFailed(() => killLeftovers(seen.worktrees, seen.pids));
  await waitFor(
    () => {
      seen.worktrees = worktrees();
      seen.pids = files()
        .map(pidIn)
        .filter((p) => p !== undefined);
      return seen.worktrees.length === 2 && seen.pids.length === 2 * PID_FILES.length;
    },
    60_000,
    'both workers’ agents at work',
  );
  const pids = seen.pids;
  for (const pid of pids) expect(pidAlive(pid), `pid ${pid} before the stop`).toBe(true);
  return { run, worktrees: worktrees(), pids };
}

// Several Ralph and agent processes at once: a loaded 2-core machine needs time, never luck.
describe('stopping ralph run --parallel leaves no agent running', { timeout: 120_000 }, () => {
  it('Ctrl-C twice: every worker’s agent group and marked process is gone when ralph exits', async () => {
    // A long grace: the first Ctrl-C alone would wait it out for the shells that ignore SIGTERM.
    const { run, worktrees, pids } = await twoWorkersAtWork(60);
    run.child.kill('SIGINT');
    await waitFor(() => run.stderr().includes('ralph: stopping'), 20_000, 'the graceful stop');
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('ralph: forced stop — the workers were killed');
    // SIGKILLed before the exit: at most a zombie its new parent has yet to reap.
    await waitFor(() => pids.every((pid) => !pidAlive(pid)), 2_000, 'every agent process gone');
    for (const w of worktrees) {
      expect(markedProcesses(w)).toEqual([]);
      // Each worker's run says forced stop, as a single run's second Ctrl-C leaves it.
      expect(readState(w)).toMatchObject({ status: 'interrupted', stop_message: FORCED_STOP_MESSAGE });
      expect(existsSync(join(w, '.ralph', 'loop.lock'))).toBe(false);
    }
  });

  it('SIGTERM: the workers stop gracefully and no agent process is left when ralph exits', async () => {
    const { run, worktrees, pids } = await twoWorkersAtWork(1);
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    await waitFor(() => pids.every((pid) => !pidAlive(pid)), 2_000, 'every agent process gone');
    for (const w of worktrees) expect(markedProcesses(w)).toEqual([]);
  });
});
