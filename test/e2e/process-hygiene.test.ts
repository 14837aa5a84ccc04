import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import {
  cleanupWorkspaces,
  fakeConfig,
  makeWorkspace,
  pidAlive,
  readRecords,
  readState,
  runRalph,
  startRalph,
  waitFor,
} from '../helpers/workspace.ts';

const linux = process.platform === 'linux';
const used: string[] = [];
const PID_FILES = ['agent.pid', 'daemon.pid', 'forked.pid'];

const readPid = (dir: string, name: string) => Number(readFileSync(join(dir, name), 'utf8').trim());

function workspace(files: Record<string, string>): string {
  const dir = makeWorkspace(files);
  used.push(dir);
  return dir;
}

// Whatever a failing test left running dies here, marked or not (the old code set no mark).
afterEach(() => {
  const pids = used.flatMap((d) => PID_FILES.filter((f) => existsSync(join(d, f))).map((f) => readPid(d, f)));
  killLeftovers(used.splice(0), pids);
});
afterAll(cleanupWorkspaces);

/** `setsid sleep` (a new session) and a double-forked daemon (re-parented to init), output detached. */
const DETACH = [
  '      - run: "setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > daemon.pid"',
  `      - run: "sh -c 'setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > forked.pid' &"`,
];

describe.runIf(linux)('nothing an iteration started outlives it', () => {
  it('kills a setsid process and a double-forked daemon when the agent exits normally, and records them', async () => {
    const dir = workspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1, kill_grace_seconds: 0.5 }),
      'fake-agent.yml': ['turns:', '  - do:', ...DETACH, '      - print: done'].join('\n'),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    const daemon = readPid(dir, 'daemon.pid');
    const forked = readPid(dir, 'forked.pid');
    expect(pidAlive(daemon)).toBe(false);
    expect(pidAlive(forked)).toBe(false);
    expect(markedProcesses(dir)).toEqual([]);
    const [record] = readRecords(dir);
    const killed = (record?.killed_processes ?? []) as { pid: number; command: string }[];
    expect(killed.map((p) => p.pid).sort()).toEqual([daemon, forked].sort());
    expect(killed.every((p) => p.command.startsWith('sleep 300'))).toBe(true);
    expect(r.stdout).toContain('left 2 process(es) running');
  });

  it('marks every agent with its run and iteration', async () => {
    const dir = workspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 2 }),
      'fake-agent.yml':
        'turns:\n  - do:\n      - run: "echo $RALPH_ITERATION_MARK >> marks.txt"\n      - print: done\n',
    });
    await runRalph(['run'], dir);
    const runId = readState(dir).run_id;
    expect(readFileSync(join(dir, 'marks.txt'), 'utf8')).toBe(`${runId}:1\n${runId}:2\n`);
  });
});

describe.runIf(linux)('a crashed run leaves nothing running, --resume or --fresh', () => {
  async function crashWithDetachedAgent(): Promise<{ dir: string; runId: string; pids: number[] }> {
    const dir = workspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1, kill_grace_seconds: 0.5 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { file_missing: crashed.flag }',
        '    do:',
        '      - run: "echo $PPID > agent.pid"',
        ...DETACH,
        '      - hang: true',
        '  - do: [{ print: done }]',
      ].join('\n'),
    });
    const first = startRalph(['run'], dir);
    await waitFor(
      () => existsSync(join(dir, 'forked.pid')) && existsSync(join(dir, 'daemon.pid')),
      15_000,
      'agent start',
    );
    const runId = readState(dir).run_id;
    first.child.kill('SIGKILL');
    await first.done;
    const pids = PID_FILES.map((f) => readPid(dir, f));
    for (const pid of pids) expect(pidAlive(pid)).toBe(true); // orphaned by the crash
    return { dir, runId, pids };
  }

  it.each([['--fresh'], ['--resume']])('%s kills the dead run agent and what it detached', async (flag) => {
    const { dir, runId, pids } = await crashWithDetachedAgent();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'crashed.flag'), '');
    const r = await runRalph(['run', flag], dir);
    expect(r.code).toBe(2);
    for (const pid of pids) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    expect(markedProcesses(dir)).toEqual([]);
    expect(r.stdout).toContain(`left running by run ${runId}`);
  });
});
