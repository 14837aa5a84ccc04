import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { procTable } from '../../src/process/proc-table.ts';
import { psTable } from '../../src/process/ps-table.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';

const spawned: number[] = [];
afterEach(() => killLeftovers([], spawned.splice(0)));

/** A detached child (its own group) with `env` added, up once it printed. */
async function child(env: Record<string, string>, args: string[] = []): Promise<number> {
  const c = spawn(process.execPath, ['-e', "console.log('up'); setInterval(() => {}, 1000)", ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...env },
  });
  spawned.push(c.pid ?? 0);
  await new Promise<void>((resolve) => c.stdout?.once('data', () => resolve()));
  c.stdout?.destroy();
  c.unref();
  return c.pid ?? 0;
}

// Linux has both tables: ps (what macOS reads) must say what /proc says.
describe('the ps process table agrees with /proc', () => {
  it('on a process: parent, group, command line, start time (to the second)', async () => {
    const pid = await child({}, ['--', 'an argument']);
    const proc = procTable.entry(pid);
    const ps = psTable.entry(pid);
    expect(ps).toMatchObject({ pid, ppid: proc?.ppid, pgid: pid });
    expect(psTable.command(pid)).toBe(procTable.command(pid));
    expect(psTable.command(pid)).toContain('an argument');
    expect(Math.floor((procTable.startedAtMs(pid) ?? 0) / 1000) * 1000).toBe(psTable.startedAtMs(pid));
    // Each table judges the other's record of the same process (ps cannot convert /proc's ticks).
    expect(procTable.sameStart(ps?.startTime ?? '', pid)).toBe(true);
    expect(psTable.sameStart(ps?.startTime ?? '', pid)).toBe(true);
    expect(psTable.sameStart(proc?.startTime ?? '', pid)).toBeUndefined();
    expect(psTable.sameStart('epoch:1', pid)).toBe(false);
    expect(psTable.entries()?.map((e) => e.pid)).toContain(pid);
    expect(psTable.entry(2 ** 22 + 12345)).toBeUndefined();
  });

  it('on the processes carrying a variable, and its value; not one that only names it in an argument', async () => {
    const name = `RALPH_TABLE_TEST_${process.pid}`;
    const carrier = await child({ [name]: 'run-x:7' });
    const namer = await child({}, ['--', `${name}=run-x:8`]);
    const byPs = psTable.marked(name) ?? [];
    const byProc = procTable.marked(name) ?? [];
    expect(byPs.map((m) => [m.pid, m.mark])).toEqual([[carrier, 'run-x:7']]);
    expect(byProc.map((m) => [m.pid, m.mark])).toEqual([[carrier, 'run-x:7']]);
    expect(byPs.map((m) => m.pid)).not.toContain(namer);
  });
});
