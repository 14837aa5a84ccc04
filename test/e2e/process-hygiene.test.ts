import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, markedProcesses } from '../helpers/marked-processes.ts';
import { elapse } from '../helpers/wait.ts';
import {
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
/** A pid file is complete once its line ends: `echo $! > f` creates the file before writing it. */
const pidWritten = (dir: string, name: string) =>
  existsSync(join(dir, name)) && readFileSync(join(dir, name), 'utf8').endsWith('\n');

function workspace(files: Record<string, string>): string {
  const dir = makeWorkspace(files);
  used.push(dir);
  return dir;
}

// Whatever a failing test left running dies here, marked or not (the old code set no mark).
afterEach(() => {
  const pids = used.flatMap((d) => PID_FILES.filter((f) => pidWritten(d, f)).map((f) => readPid(d, f)));
  killLeftovers(used.splice(0), pids);
});

/** `setsid sleep` (a new session) and a double-forked daemon (re-parented to init), output detached. */
const DETACH = [
  '      - run: "setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > daemon.pid"',
  `      - run: "sh -c 'setsid sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > forked.pid' &"`,
  // The agent goes on only once the daemon is started: the order is fixed, not timed.
  '      - run: "while ! grep -q . forked.pid 2>/dev/null; do sleep 0.02; done"',
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
    // The short-lived `sh` that forked the daemon may be listed too if it had not exited yet.
    const sleeps = killed.filter((p) => p.command.startsWith('sleep 300')).map((p) => p.pid);
    expect(sleeps.sort()).toEqual([daemon, forked].sort());
    expect(r.stdout).toContain('process(es) running; killed');
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
    await waitFor(() => PID_FILES.every((f) => pidWritten(dir, f)), 15_000, 'agent start');
    const runId = readState(dir).run_id;
    first.child.kill('SIGKILL');
    await first.done;
    const pids = PID_FILES.map((f) => readPid(dir, f));
    for (const pid of pids) expect(pidAlive(pid)).toBe(true); // orphaned by the crash
    return { dir, runId, pids };
  }

  it.each([['--fresh'], ['--resume']])('%s kills the dead run agent and what it detached', async (flag) => {
    const { dir, runId, pids } = await crashWithDetachedAgent();
    writeFileSync(join(dir, 'crashed.flag'), '');
    const r = await runRalph(['run', flag], dir);
    expect(r.code).toBe(2);
    for (const pid of pids) expect(pidAlive(pid), `pid ${pid}`).toBe(false);
    expect(markedProcesses(dir)).toEqual([]);
    expect(r.stdout).toContain(`left running by run ${runId}`);
  });
});

describe('signals outside the agent phase', () => {
  it('Ctrl-C while a gate runs after the agent exited: the iteration is finished and recorded once, exit 130, resumable', async () => {
    const dir = workspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': `${fakeConfig({ max_iterations: 2, kill_grace_seconds: 0.5 })}gates:\n  validate: "touch gate.started; while [ ! -f go ]; do sleep 0.05; done; touch gate.done"\n`,
      'fake-agent.yml': 'turns:\n  - do: [{ print: "iteration {{iteration}}" }]\n',
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'gate.started')), 15_000, 'the validate gate');
    loop.child.kill('SIGINT');
    // The gate goes on only once Ralph has taken the interrupt: the order is fixed, not timed.
    await waitFor(() => loop.stderr().includes('stopping'), 10_000, 'the interrupt taken');
    writeFileSync(join(dir, 'go'), '');
    const r = await loop.done;
    expect(r.code).toBe(130);
    expect(readState(dir)).toMatchObject({
      status: 'interrupted',
      stop_reason: 'interrupted',
      iterations: 1,
    });
    expect(existsSync(join(dir, 'gate.done'))).toBe(true);
    expect(readRecords(dir)).toMatchObject([
      { iteration: 1, verdict: 'success', gates: { validate: { passed: true } } },
    ]);
    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code).toBe(2);
    expect(readRecords(dir).map((x) => `${x.iteration}:${x.verdict}`)).toEqual(['1:success', '2:success']);
  });

  it.runIf(linux)(
    'SIGHUP while the agent runs stops like SIGTERM: agent and what it detached killed, exit 130, resumable',
    async () => {
      const dir = workspace({
        'PROMPT.md': 'work\n',
        'ralph.yml': fakeConfig({ kill_grace_seconds: 0.5 }),
        'fake-agent.yml': [
          'turns:',
          '  - do:',
          '      - run: "echo $PPID > agent.pid"',
          ...DETACH,
          '      - hang: true',
        ].join('\n'),
      });
      const loop = startRalph(['run'], dir);
      await waitFor(() => PID_FILES.every((f) => pidWritten(dir, f)), 15_000, 'agent start');
      loop.child.kill('SIGHUP');
      const r = await loop.done;
      expect(r.code).toBe(130);
      expect(readState(dir)).toMatchObject({ status: 'interrupted', stop_reason: 'interrupted' });
      expect(readState(dir).current.number).toBe(1);
      for (const f of PID_FILES) expect(pidAlive(readPid(dir, f)), f).toBe(false);
      expect(markedProcesses(dir)).toEqual([]);
    },
  );

  it.runIf(linux)('a second Ctrl-C also kills at once what the agent detached', async () => {
    const dir = workspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ kill_grace_seconds: 60 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "echo $PPID > agent.pid"',
        `      - run: "setsid node -e \\"process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)\\" > /dev/null 2>&1 & echo $! > daemon.pid"`,
        '      - hang: true',
      ].join('\n'),
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => pidWritten(dir, 'daemon.pid'), 15_000, 'agent start');
    loop.child.kill('SIGINT');
    await elapse(300, 'the gap between the two Ctrl-Cs');
    loop.child.kill('SIGINT');
    const r = await loop.done;
    expect(r.code).toBe(130);
    await waitFor(() => !pidAlive(readPid(dir, 'daemon.pid')), 2000, 'the detached daemon killed');
    expect(markedProcesses(dir)).toEqual([]);
  });
});
