import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  killMarkedNow,
  MARK_VAR,
  markFor,
  sweepMarkedProcesses,
} from '../../src/process/marked-processes.ts';
import { processTable } from '../../src/process/pids.ts';
import { kernelThreadPids, readProcStat } from '../../src/process/proc-files.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import { pidAlive, waitFor } from '../helpers/workspace.ts';

const spawned: number[] = [];
afterEach(() => killLeftovers([], spawned.splice(0)));

/** A detached process (own session) with a mark; `stubborn` ignores SIGTERM. */
async function marked(
  mark: string,
  stubborn = false,
  extraEnv: Record<string, string> = {},
): Promise<number> {
  const code = `${stubborn ? "process.on('SIGTERM', () => {});" : ''} console.log('up'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...extraEnv, [MARK_VAR]: mark },
  });
  const pid = child.pid ?? 0;
  spawned.push(pid);
  // Up (and its SIGTERM handler installed) once it printed.
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  child.stdout?.destroy();
  child.unref();
  return pid;
}

const runId = () => `sweep-test-${process.pid}-${Math.random().toString(36).slice(2)}`;

describe.runIf(process.platform === 'linux')('sweeping marked processes (real /proc)', () => {
  it("kills the run's processes, SIGKILLing one that ignores SIGTERM, and spares another run's", async () => {
    const run = runId();
    const other = runId();
    const polite = await marked(markFor(run, 1));
    const stubborn = await marked(markFor(run, 2), true);
    const bystander = await marked(markFor(other, 1));
    const killed = await sweepMarkedProcesses({ runId: run }, 300);
    expect(killed.map((p) => p.pid).sort()).toEqual([polite, stubborn].sort());
    expect(killed[0]?.command).toContain(process.execPath);
    await waitFor(() => !pidAlive(polite) && !pidAlive(stubborn), 5000, 'both gone');
    expect(pidAlive(bystander)).toBe(true);
  });

  it('kills only the selected iteration when one is given; at once with killMarkedNow', async () => {
    const run = runId();
    const first = await marked(markFor(run, 1), true);
    const second = await marked(markFor(run, 2), true);
    expect(killMarkedNow({ runId: run, iteration: 2 })).toBe(1);
    await waitFor(() => !pidAlive(second), 5000, 'iteration 2 gone');
    expect(pidAlive(first)).toBe(true);
  });

  // procps's ps prints at most 128 KB of a command line and its environment: behind 180 KB of
  // padding the mark is out of its sight (platforms.md says so); this case is /proc's.
  it.skipIf(processTable().kind === 'ps')(
    'finds a mark behind a large environment (more than one read of environ)',
    async () => {
      const run = runId();
      // Several variables: one string may not exceed 128 KB (E2BIG).
      const padding = Object.fromEntries(
        [1, 2, 3].map((i) => [`RALPH_TEST_PADDING_${i}`, 'x'.repeat(60_000)]),
      );
      const big = await marked(markFor(run, 1), false, padding);
      const killed = await sweepMarkedProcesses({ runId: run }, 300);
      expect(killed.map((p) => p.pid)).toEqual([big]);
    },
  );

  it('skips only kernel threads (never this process or a child of it)', async () => {
    const child = await marked(markFor(runId(), 1));
    const kernel = kernelThreadPids();
    expect(kernel.has(process.pid)).toBe(false);
    expect(kernel.has(child)).toBe(false);
    for (const pid of kernel) {
      const stat = readProcStat(pid);
      // Gone meanwhile is fine; a live one is kthreadd or its child.
      if (stat) expect(pid === 2 || stat.ppid === 2).toBe(true);
    }
  });

  it('after an agent that exited, still finds what it left running (the count of new processes shows it)', async () => {
    const run = runId();
    expect(await sweepMarkedProcesses({ runId: run }, 300)).toEqual([]);
    // The "agent": leaves a detached, marked grandchild behind and exits.
    const code = `const { spawn } = require('node:child_process');
      const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      console.log(c.pid); c.unref();`;
    const agent = spawn(process.execPath, ['-e', code], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, [MARK_VAR]: markFor(run, 1) },
    });
    let out = '';
    agent.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    await new Promise((resolve) => agent.on('close', resolve));
    const leftover = Number(out.trim());
    spawned.push(leftover);
    const killed = await sweepMarkedProcesses({ runId: run }, 300, { started: 1 });
    expect(killed.map((p) => p.pid)).toEqual([leftover]);
  });

  it('after a clean sweep, finds a process started since once, not once per thread (its threads share the mark)', async () => {
    const run = runId();
    expect(await sweepMarkedProcesses({ runId: run }, 300)).toEqual([]);
    // A Node process has several threads, whose ids follow its pid and whose environ is its own.
    const pid = await marked(markFor(run, 1));
    const killed = await sweepMarkedProcesses({ runId: run }, 300, { started: 0 });
    expect(killed.map((p) => p.pid)).toEqual([pid]);
    await waitFor(() => !pidAlive(pid));
  });
});
