import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  completingWorkspace,
  makeWorkspace,
  type RalphProcess,
  readState,
  readStatus,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

const started: RalphProcess[] = [];

afterEach(async () => {
  for (const p of started.splice(0)) {
    // SIGKILL ends a process stopped by a fault point too.
    p.child.kill('SIGKILL');
    await p.done;
  }
});

/** The workspaces of the registry's lines, in order. */
function registryWorkspaces(stateHome: string): string[] {
  return readFileSync(join(stateHome, 'ralph', 'runs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).workspace as string);
}

/** The process's state letter from /proc (T: stopped). */
function procState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2)[0] as string;
}

describe('ralph runs', () => {
  it('lists every registered run (text and --json); prune forgets only the runs whose workspace is gone', async () => {
    const home = makeWorkspace();
    const env = { XDG_STATE_HOME: home };
    const kept = completingWorkspace();
    const gone = completingWorkspace();
    expect((await runRalph(['run'], kept, env)).code).toBe(0);
    expect((await runRalph(['run'], gone, env)).code).toBe(0);
    const goneRun = readState(gone).run_id as string;
    rmSync(gone, { recursive: true, force: true });
    // A loop still at work, and a line of a deleted directory whose loop process still lives.
    const live = completingWorkspace(true);
    const loop = startRalph(['run'], live, env);
    started.push(loop);
    await waitFor(() => readStatus(live) === 'running', 15_000, 'the live loop');
    const orphan = join(home, 'deleted-under-a-running-loop');
    appendFileSync(
      join(home, 'ralph', 'runs.jsonl'),
      `${JSON.stringify({ workspace: orphan, run_id: 'r-orphan', pid: process.pid, started_at: new Date().toISOString(), updated_at: new Date().toISOString(), status: 'running', stop_reason: null })}\n`,
    );

    const list = await runRalph(['runs'], home, env);
    expect(list.code).toBe(0);
    const line = (ws: string) => list.stdout.split('\n').find((l) => l.startsWith(`${ws}  `)) ?? '';
    expect(line(kept)).toMatch(
      new RegExp(
        `^${kept}  ${readState(kept).run_id}  completed  started (just now|\\d+s ago)  last seen (just now|\\d+s ago)$`,
      ),
    );
    expect(line(gone)).toMatch(
      new RegExp(
        `^${gone}  ${goneRun}  removed  started (just now|\\d+s ago)  last seen (just now|\\d+s ago)$`,
      ),
    );
    expect(line(live)).toContain('  running  ');
    expect(list.stdout).toContain('1 of these has its workspace gone: ralph runs prune forgets them');

    const json = JSON.parse((await runRalph(['runs', '--json'], home, env)).stdout) as Record<
      string,
      unknown
    >[];
    expect(json.map((r) => r.workspace).sort()).toEqual([kept, gone, live, orphan].sort());
    const goneJson = json.find((r) => r.workspace === gone);
    expect(goneJson).toMatchObject({ run_id: goneRun, state: 'removed', alive: false });
    expect(Object.keys(goneJson ?? {}).sort()).toEqual(
      ['alive', 'detail', 'last_seen', 'pid', 'run_id', 'started_at', 'state', 'workspace'].sort(),
    );
    expect(json.find((r) => r.workspace === live)).toMatchObject({
      state: 'running',
      alive: true,
    });

    const prune = await runRalph(['runs', 'prune'], home, env);
    expect(prune.code).toBe(0);
    expect(prune.stdout).toBe(`forgot ${gone} (${goneRun})\npruned 1 run whose workspace is gone; 3 kept\n`);
    const left = registryWorkspaces(home);
    expect(left).not.toContain(gone);
    expect(new Set(left)).toEqual(new Set([kept, live, orphan]));
    expect((await runRalph(['runs', 'prune'], home, env)).stdout).toBe(
      'pruned 0 runs whose workspace is gone; 3 kept\n',
    );

    // The live loop goes on and records its end in the pruned registry.
    writeFileSync(join(live, 'go'), '');
    expect((await loop.done).code).toBe(0);
    expect(registryWorkspaces(home).filter((w) => w === live)).toHaveLength(2);
  }, 60_000);

  it('a run that starts while prune rewrites the registry waits for it and keeps its line', async () => {
    const home = makeWorkspace();
    const env = { XDG_STATE_HOME: home };
    const gone = completingWorkspace();
    expect((await runRalph(['run'], gone, env)).code).toBe(0);
    rmSync(gone, { recursive: true, force: true });

    // Prune freezes after reading the registry, just before its rewrite, holding the lock.
    const prune = startRalph(['runs', 'prune'], home, {
      ...env,
      RALPH_FAULT_SIGNAL_BEFORE_WRITE: '1:SIGSTOP',
    });
    started.push(prune);
    await waitFor(() => procState(prune.child.pid as number) === 'T', 15_000, 'prune to stop mid-way');
    const fresh = completingWorkspace();
    const run = startRalph(['run'], fresh, env);
    started.push(run);
    let ended = false;
    void run.done.then(() => {
      ended = true;
    });
    // A run that did not wait would have appended to the file prune is about to replace, and ended.
    const waiting = `waiting for the run registry (${join(home, 'ralph', 'runs.jsonl')}), locked by pid ${prune.child.pid}`;
    await waitFor(() => ended || run.stdout().includes(waiting), 15_000, 'the new run to wait or end');
    prune.child.kill('SIGCONT');
    const pruned = await prune.done;
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('pruned 1 run whose workspace is gone; 0 kept');
    expect((await run.done).code).toBe(0);
    // Both of the new run's lines (start and end) survived the rewrite; the gone run's did not.
    expect(registryWorkspaces(home)).toEqual([fresh, fresh]);
    expect(run.stdout()).toContain(waiting);
  }, 60_000);
});
