import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processInfo, processTable } from '../../src/process/pids.ts';
import { NOT_ITS_START_TIME } from '../helpers/start-time.ts';
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

const stateOf = (dir: string) => (existsSync(join(dir, '.ralph', 'state.json')) ? readState(dir) : undefined);

describe('durable state: kill -9 and --resume', () => {
  it('re-runs the interrupted iteration with the same counters after kill -9, killing the orphaned agent first', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 5, kill_grace_seconds: 0.5 }),
      'fake-agent.yml': [
        'turns:',
        '  - when: { iteration: 1 }',
        '    do:',
        '      - result: { text: "first", cost_usd: 0.1, input_tokens: 100, output_tokens: 10 }',
        '  - when: { iteration: 2, file_missing: resume.flag }',
        '    do:',
        '      - run: "echo $PPID > agent.pid"',
        '      - spawn_grandchild: { pid_file: grandchild.pid, seconds: 600 }',
        '      - hang: true',
        '  - when: { iteration: 2 }',
        '    do:',
        '      - append: { path: resumed.txt, content: "iteration {{iteration}} re-run\\n" }',
        '      - result: { text: "second\\nLOOP_COMPLETE", cost_usd: 0.2, input_tokens: 200, output_tokens: 20 }',
      ].join('\n'),
    });
    const first = startRalph(['run'], dir);
    await waitFor(
      () => existsSync(join(dir, 'grandchild.pid')) && stateOf(dir)?.current?.agent_pid > 0,
      15_000,
      'iteration 2 agent',
    );
    const before = readState(dir);
    expect(before.current.number).toBe(2);
    expect(before.iterations).toBe(1);
    first.child.kill('SIGKILL');
    await first.done;

    const agentPid = Number(readFileSync(join(dir, 'agent.pid'), 'utf8'));
    const grandchildPid = Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));
    expect(pidAlive(agentPid)).toBe(true); // orphaned by the crash
    expect(readState(dir).status).toBe('running');

    // Neither flag: refused, naming both flags; nothing is clobbered.
    const refused = await runRalph(['run'], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--resume');
    expect(refused.stderr).toContain('--fresh');
    expect(readState(dir).run_id).toBe(before.run_id);

    const status = await runRalph(['status'], dir);
    expect(status.stdout).toContain('--resume');

    writeFileSync(join(dir, 'resume.flag'), '');
    const resumed = await runRalph(['run', '--resume'], dir);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('killed');
    expect(pidAlive(agentPid)).toBe(false);
    expect(pidAlive(grandchildPid)).toBe(false);
    const after = readState(dir);
    expect(after.run_id).toBe(before.run_id);
    expect(after.iterations).toBe(2);
    expect(after.cost_usd).toBeCloseTo(0.3);
    expect(after.tokens.total).toBe(330);
    expect(after.elapsed_ms).toBeGreaterThanOrEqual(before.elapsed_ms);
    expect(after.stop_reason).toBe('completed');
    expect(readFileSync(join(dir, 'resumed.txt'), 'utf8')).toBe('iteration 2 re-run\n');
    expect(readRecords(dir).map((r) => r.iteration)).toEqual([1, 2]);
  });

  it('--fresh discards the unfinished run and starts over', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
      '.ralph/state.json': JSON.stringify({
        version: 1,
        run_id: 'old-run',
        status: 'running',
        pid: 999999,
        iterations: 7,
        current: {
          number: 8,
          hat: null,
          started_at: new Date().toISOString(),
          agent_pid: null,
          agent_start_time: null,
        },
        tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 },
      }),
    });
    const r = await runRalph(['run', '--fresh'], dir);
    expect(r.code).toBe(2);
    const state = readState(dir);
    expect(state.run_id).not.toBe('old-run');
    expect(state.iterations).toBe(1);
  });

  it('a corrupt state.json is reported with what to do; --fresh keeps it aside and starts over', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
      '.ralph/state.json': '{"version": 1, "run_id": "half-writ',
    });
    const refused = await runRalph(['run'], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('state.json is damaged (');
    expect(refused.stderr).toContain('--fresh');
    const fresh = await runRalph(['run', '--fresh'], dir);
    expect(fresh.code).toBe(2);
    expect(readState(dir).iterations).toBe(1);
    expect(readdirSync(join(dir, '.ralph')).some((n) => n.startsWith('state.json.corrupt-'))).toBe(true);
  });

  it('a finished run does not block a plain `ralph run`', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
    });
    expect((await runRalph(['run'], dir)).code).toBe(2);
    const firstId = readState(dir).run_id;
    expect((await runRalph(['run'], dir)).code).toBe(2);
    expect(readState(dir).run_id).not.toBe(firstId);
  });
});

describe('one loop per workspace', () => {
  it('refuses a concurrent run naming the holder pid; `ralph stop --now` then ends the first (exit 0)', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ kill_grace_seconds: 0.5 }),
      'fake-agent.yml': 'turns:\n  - do:\n      - run: "echo $PPID > agent.pid"\n      - hang: true\n',
    });
    const first = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'agent.pid')), 15_000, 'agent start');
    const second = await runRalph(['run'], dir);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);

    const status = await runRalph(['status', '--json'], dir);
    const json = JSON.parse(status.stdout);
    expect(json).toMatchObject({ running: true, pid: first.child.pid });
    expect(json.state.current.number).toBe(1);

    const stop = await runRalph(['stop', '--now'], dir);
    expect(stop.code).toBe(0);
    const r = await first.done;
    expect(r.code).toBe(0);
    expect(readState(dir).stop_reason).toBe('cancelled');
    expect(pidAlive(Number(readFileSync(join(dir, 'agent.pid'), 'utf8')))).toBe(false);
    expect(existsSync(join(dir, '.ralph', 'loop.lock'))).toBe(false);
  });

  it('`ralph stop` stops at the next iteration boundary without killing the agent', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig(),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - append: { path: started.txt, content: "{{iteration}}\\n" }',
        // Works until the test lets it go: the stop is known to arrive while iteration 1 runs.
        '      - run: "while [ ! -f go ]; do sleep 0.05; done"',
        '      - append: { path: finished.txt, content: "{{iteration}}\\n" }',
      ].join('\n'),
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'started.txt')), 15_000, 'first iteration');
    expect((await runRalph(['stop'], dir)).code).toBe(0);
    writeFileSync(join(dir, 'go'), '');
    const r = await loop.done;
    expect(r.code).toBe(0);
    expect(readState(dir)).toMatchObject({ stop_reason: 'cancelled', iterations: 1 });
    expect(readFileSync(join(dir, 'finished.txt'), 'utf8')).toBe('1\n');
  });

  it('takes over a lock left by a dead process', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(dead.stdout.toString());
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
      '.ralph/loop.lock': JSON.stringify({
        pid: deadPid,
        host: hostname(),
        started_at: new Date().toISOString(),
      }),
    });
    const r = await runRalph(['run'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`stale lock left by pid ${deadPid}`);
  });

  it('takes over a lock whose pid now belongs to an unrelated live process (pid reuse)', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const dir = makeWorkspace({
        'PROMPT.md': 'work\n',
        'ralph.yml': fakeConfig({ max_iterations: 1 }),
        'fake-agent.yml': 'turns:\n  - do: [{ print: ok }]\n',
        '.ralph/loop.lock': JSON.stringify({
          pid: other.pid,
          host: hostname(),
          started_at: new Date().toISOString(),
          start_time: NOT_ITS_START_TIME,
        }),
      });
      const r = await runRalph(['run'], dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toContain(
        `stale lock left by pid ${other.pid} (that pid now belongs to another process)`,
      );
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('writes its own start time (from the process table it runs) into the lock, and respects a live holder', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ max_iterations: 1 }),
      'fake-agent.yml': 'turns:\n  - do: [{ run: "touch started" }, { hang: true }]\n',
    });
    const first = startRalph(['run'], dir);
    try {
      await waitFor(() => existsSync(join(dir, 'started')), 15_000, 'the agent');
      const lock = JSON.parse(readFileSync(join(dir, '.ralph', 'loop.lock'), 'utf8'));
      expect(lock.pid).toBe(first.child.pid);
      expect(lock.start_time).toBe(processInfo(first.child.pid!)?.startTime);
      // The CLI reads the table this test forces (RALPH_PROCESS_TABLE=ps in the ps-table project).
      expect(lock.start_time).toMatch(processTable().kind === 'ps' ? /^epoch:\d+$/ : /^\d+$/);
      const second = await runRalph(['run', '--fresh'], dir);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`pid ${first.child.pid}`);
    } finally {
      first.child.kill('SIGINT');
      await first.done;
    }
  });

  it('`ralph stop` with no loop running says so (exit 1)', async () => {
    const dir = makeWorkspace({});
    const r = await runRalph(['stop'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no Ralph loop is running');
  });
});

describe('Ctrl-C', () => {
  it('once: kills the agent group, saves state as interrupted, exits 130; the next run needs --resume or --fresh', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      'ralph.yml': fakeConfig({ kill_grace_seconds: 0.5 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "echo $PPID > agent.pid"',
        '      - spawn_grandchild: { pid_file: grandchild.pid }',
        '      - hang: true',
      ].join('\n'),
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'grandchild.pid')), 15_000, 'agent start');
    loop.child.kill('SIGINT');
    const r = await loop.done;
    expect(r.code).toBe(130);
    const state = readState(dir);
    expect(state).toMatchObject({ status: 'interrupted', stop_reason: 'interrupted', iterations: 0 });
    expect(state.current.number).toBe(1);
    expect(pidAlive(Number(readFileSync(join(dir, 'agent.pid'), 'utf8')))).toBe(false);
    expect(pidAlive(Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8')))).toBe(false);
    const again = await runRalph(['run'], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/--resume.*--fresh/);
  });

  it('twice: exits 130 at once, killing the agent without grace', async () => {
    const dir = makeWorkspace({
      'PROMPT.md': 'work\n',
      // A long grace: only the forced path can end this quickly.
      'ralph.yml': fakeConfig({ kill_grace_seconds: 60 }),
      'fake-agent.yml': [
        'turns:',
        '  - do:',
        '      - run: "echo $PPID > agent.pid"',
        // stubborn.ready once it ignores SIGTERM: on a loaded machine node takes longer to start
        // than the 300 ms between the two signals, and a child that dies of the first SIGTERM lets
        // the graceful stop finish before the second signal arrives.
        `      - run: "exec node -e \\"process.on('SIGTERM', () => {}); require('fs').writeFileSync('stubborn.ready', ''); setInterval(() => {}, 1000)\\" & echo $! > stubborn.pid"`,
        '      - hang: true',
      ].join('\n'),
    });
    const loop = startRalph(['run'], dir);
    await waitFor(() => existsSync(join(dir, 'stubborn.ready')), 15_000, 'agent start');
    loop.child.kill('SIGINT');
    await elapse(300, 'the gap between the two Ctrl-Cs');
    loop.child.kill('SIGINT');
    const r = await loop.done;
    expect(r.code).toBe(130);
    await waitFor(
      () => !pidAlive(Number(readFileSync(join(dir, 'stubborn.pid'), 'utf8'))),
      15_000,
      'stubborn child killed',
    );
  });
});
