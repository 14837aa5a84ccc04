import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { openDashboard } from '../helpers/dashboard.ts';
import { git, makeGitWorkspace } from '../helpers/git-workspace.ts';
import { killLeftovers } from '../helpers/marked-processes.ts';
import { hasRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { elapse, waitForValue } from '../helpers/wait.ts';
import {
  makeWorkspace,
  pidAlive,
  type RalphProcess,
  runRalph,
  shellAgentConfig,
  shellResult,
  startRalph,
} from '../helpers/workspace.ts';

// Workers are separate `ralph fleet worker` processes with separate workdirs: separate machines
// as far as the fleet can tell. Everything is on 127.0.0.1. The agent is a shell script speaking
// stream-json (`custom`): the fleet is the subject, not the scripted agent, whose node start per
// iteration was much of each test's time.

interface Fleet {
  redis: TestRedis;
  client: Redis;
  root: string;
  probe: string;
  remote: string;
  workers: Map<string, RalphProcess>;
}

let current: Fleet | undefined;

afterEach(async () => {
  const f = current;
  current = undefined;
  if (!f) return;
  for (const w of f.workers.values()) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await w.done;
  }
  const runIds = await f.client.zrange('ralph:fleet:ralph:runs', '0', '-1').catch(() => []);
  killLeftovers([...f.workers.keys()].flatMap((id) => runIds.map((run) => join(f.root, id, run))));
  f.client.disconnect();
  await f.redis.stop();
});

/** The agent's stream-json result line, costing $0.01. */
const result = (text: string) => shellResult(text, 0.01);

/** A bare remote holding ralph.yml, PROMPT.md and the agent (agent.sh, the lines of `script`). */
async function startFleet(script: string[]): Promise<Fleet> {
  const redis = await startRedis();
  const root = makeWorkspace();
  const probe = join(root, 'probe');
  mkdirSync(probe);
  const src = makeGitWorkspace({
    'PROMPT.md': 'work\n',
    'ralph.yml': shellAgentConfig({ max_iterations: 10, kill_grace_seconds: 0.5 }),
    'agent.sh': `${script.join('\n')}\n`,
  });
  const remote = join(root, 'remote.git');
  git(root, 'clone', '-q', '--bare', src, remote);
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  client.on('error', () => {});
  current = { redis, client, root, probe, remote, workers: new Map() };
  return current;
}

/**
 * The CLI's 2 s lock: a shorter one can expire under heavy load (Redis fsyncs every write here),
 * and a run then moves between workers on its own, which the tests would have to allow for.
 */
function startWorker(f: Fleet, id: string, lockMs = 2000, extra: string[] = []): RalphProcess {
  const w = startRalph(
    [
      'fleet',
      'worker',
      '--id',
      id,
      '--workdir',
      join(f.root, id),
      '--lock-ms',
      String(lockMs),
      '--redis',
      f.redis.url,
      ...extra,
    ],
    f.root,
    { FLEET_PROBE: f.probe },
  );
  f.workers.set(id, w);
  return w;
}

async function submit(f: Fleet): Promise<string> {
  const r = await runRalph(['fleet', 'submit', '--repo', f.remote, '--redis', f.redis.url], f.root);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: string,
) {
  return waitForValue(check, timeoutMs, what);
}

/** Lines `<iteration> <workspace>` the agent wrote when each iteration started. */
function starts(f: Fleet): { iteration: number; worker: string }[] {
  const file = join(f.probe, 'started');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [n, ws] = line.split(' ');
      return { iteration: Number(n), worker: (ws ?? '').slice(f.root.length + 1).split('/')[0] ?? '' };
    });
}

const run = (f: Fleet, id: string) => f.client.hgetall(`ralph:fleet:ralph:run:${id}`);
const finalRun = (f: Fleet, id: string, state = 'completed') =>
  until(async () => ((await run(f, id)).state === state ? run(f, id) : undefined), 45_000, `run ${state}`);

/** The checkpoint's iteration records and state. */
async function checkpoint(f: Fleet, id: string) {
  const files = await f.client.hgetall(`ralph:fleet:ralph:files:${id}`);
  const records = (files[`.ralph/runs/${id}/iterations.jsonl`] ?? '')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { iteration: number; verdict: string });
  return { records, state: JSON.parse(files['.ralph/state.json'] ?? '{}') };
}

/** Every finished (not aborted) iteration exactly once, in order, and the work tree says the same. */
async function expectExactlyOnce(f: Fleet, id: string, iterations: number) {
  const { records, state } = await checkpoint(f, id);
  // No iteration was spoiled either (a killed agent would record a failure without a cost).
  expect(records.filter((r) => r.verdict === 'failure')).toEqual([]);
  const finished = records.filter((r) => r.verdict !== 'aborted').map((r) => r.iteration);
  const expected = Array.from({ length: iterations }, (_, i) => i + 1);
  expect(finished).toEqual(expected);
  expect(state.iterations).toBe(iterations);
  expect(state.cost_usd).toBeCloseTo(0.01 * iterations, 6);
  const work = git(f.remote, 'show', `ralph/fleet/${id}:work.txt`);
  expect(work).toBe(expected.map((n) => `iteration ${n}\n`).join(''));
}

/** Records the iteration's start (`<iteration> <workspace>`) in the probe's `started`. */
const STARTED = 'echo "$RALPH_ITERATION $RALPH_WORKSPACE_ROOT" >> "$FLEET_PROBE/started"';

/** Iterations 1-4 (4 completes); each records its start, appends to work.txt, costs $0.01. */
function fourIterations(slow: string[] = ['sleep 1']): string[] {
  return [
    STARTED,
    'echo "iteration $RALPH_ITERATION" >> work.txt',
    'if [ "$RALPH_ITERATION" -le 3 ]; then',
    ...slow,
    `  ${result('did $RALPH_ITERATION')}`,
    'else',
    `  ${result('done\\\\nLOOP_COMPLETE')}`,
    'fi',
  ];
}

const d = hasRedisServer ? describe : describe.skip;
if (!hasRedisServer)
  it.skip('fleet tests need redis-server (apt-get install redis-server; .ci/run installs it)', () => {});

d('ralph fleet (BullMQ + Redis, a shell agent, local bare remote)', () => {
  it('kill -9 of a worker mid-iteration: another worker resumes, every iteration recorded exactly once', async () => {
    const f = await startFleet(fourIterations());
    startWorker(f, 'wA');
    startWorker(f, 'wB');
    const id = await submit(f);
    const owner = (await until(() => starts(f).find((s) => s.iteration === 2), 30_000, 'iteration 2')).worker;
    f.workers.get(owner)?.child.kill('SIGKILL');
    const other = owner === 'wA' ? 'wB' : 'wA';
    await until(
      () => starts(f).find((s) => s.iteration === 2 && s.worker === other),
      15_000,
      'resume elsewhere',
    );
    const done = await finalRun(f, id);
    expect(done.worker).toBe(other);
    expect(Number(done.attempts)).toBeGreaterThanOrEqual(2);
    await expectExactlyOnce(f, id, 4);
    // At-least-once: the interrupted iteration 2 started on both workers; 1 ran only on the first.
    expect(starts(f).filter((s) => s.iteration === 1)).toHaveLength(1);
    expect(
      starts(f)
        .filter((s) => s.iteration === 2)
        .map((s) => s.worker),
    ).toEqual([owner, other]);
  }, 60_000);

  it('a paused (SIGSTOP) worker is fenced: after SIGCONT its writes are rejected and it aborts the run', async () => {
    // The first attempt of iteration 2 is long, so the stopped worker wakes up with it unfinished.
    // Every attempt then sleeps 1 s: the new owner's agent is running when the zombie wakes up,
    // and a zombie that swept the run's marked processes would kill it (one machine, one run id).
    const slow = [
      'if [ "$RALPH_ITERATION" = 2 ] && mkdir "$FLEET_PROBE/slow" 2>/dev/null; then sleep 8; fi',
      'sleep 1',
    ];
    const f = await startFleet(fourIterations(slow));
    startWorker(f, 'wA');
    startWorker(f, 'wB');
    const id = await submit(f);
    const zombie = (await until(() => starts(f).find((s) => s.iteration === 2), 30_000, 'iteration 2'))
      .worker;
    const other = zombie === 'wA' ? 'wB' : 'wA';
    const z = f.workers.get(zombie) as RalphProcess;
    process.kill(z.child.pid as number, 'SIGSTOP');
    try {
      await until(() => starts(f).find((s) => s.iteration === 2 && s.worker === other), 20_000, 'takeover');
    } finally {
      process.kill(z.child.pid as number, 'SIGCONT');
    }
    await until(
      () => z.stderr().includes(`lost the lock of fleet run ${id}`),
      15_000,
      'the zombie to notice',
    );
    const done = await finalRun(f, id);
    expect(done.worker).toBe(other);
    await expectExactlyOnce(f, id, 4);
    // The zombie stays a healthy worker: it stopped the run, not itself.
    expect(z.child.exitCode).toBeNull();
  }, 60_000);

  it('drain and SIGTERM hand a run over at the iteration boundary without waiting for the lock to expire', async () => {
    // Iterations 1 and 2 wait for the test (a go-N file), so each drain or SIGTERM is known to have
    // reached its worker while that iteration runs, however slow the machine: the hand-over happens
    // at that iteration's end, never one later.
    const f = await startFleet(
      fourIterations(['while [ ! -e "$FLEET_PROBE/go-$RALPH_ITERATION" ]; do sleep 0.05; done']),
    );
    writeFileSync(join(f.probe, 'go-3'), '');
    const go = (n: number) => writeFileSync(join(f.probe, `go-${n}`), '');
    // A lock longer than every wait below: a resume that waited for it to expire would time out.
    const lockMs = 120_000;
    startWorker(f, 'wA', lockMs);
    startWorker(f, 'wB', lockMs);
    const id = await submit(f);
    const owner = (await until(() => starts(f).find((s) => s.iteration === 1), 30_000, 'iteration 1')).worker;
    const other = owner === 'wA' ? 'wB' : 'wA';
    const first = f.workers.get(owner) as RalphProcess;
    const drain = await runRalph(['fleet', 'drain', '--worker', owner, '--redis', f.redis.url], f.root);
    expect(drain.code, drain.stderr).toBe(0);
    await until(() => first.stderr().includes('draining'), 30_000, 'the owner to drain');
    go(1);
    const exited = await first.done;
    expect(exited.code, exited.stderr).toBe(0);
    await until(() => starts(f).find((s) => s.worker === other), 45_000, 'the other worker');
    // Iteration 1 finished before the hand-over: the other worker goes on with iteration 2.
    expect(starts(f).filter((s) => s.worker === other)[0]?.iteration).toBe(2);
    // SIGTERM does the same: the other worker finishes iteration 2 and a third one goes on.
    startWorker(f, 'wC', lockMs);
    const second = f.workers.get(other) as RalphProcess;
    second.child.kill('SIGTERM');
    await until(() => second.stderr().includes('draining'), 30_000, 'the second worker to drain');
    go(2);
    expect((await second.done).code).toBe(0);
    await until(() => starts(f).find((s) => s.worker === 'wC'), 45_000, 'the third worker');
    expect(starts(f).filter((s) => s.worker === 'wC')[0]?.iteration).toBe(3);
    const done = await finalRun(f, id);
    expect(done.worker).toBe('wC');
    expect(done.attempts).toBe('3');
    await expectExactlyOnce(f, id, 4);
  }, 180_000);

  it('a binary file under .ralph/ (all 256 byte values) travels through the checkpoint byte-identical', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const write = `node -e 'const fs=require("fs"),d=process.env.RALPH_WORKSPACE_ROOT+"/.ralph/tdd";fs.mkdirSync(d,{recursive:true});fs.writeFileSync(d+"/blob.bin",Buffer.from(Array.from({length:256},(_,i)=>i)))'`;
    const f = await startFleet([
      'if [ "$RALPH_ITERATION" = 1 ]; then',
      STARTED,
      write,
      'while [ ! -e "$FLEET_PROBE/go-1" ]; do sleep 0.05; done',
      result('wrote it'),
      'else',
      'cp "$RALPH_WORKSPACE_ROOT/.ralph/tdd/blob.bin" "$FLEET_PROBE/restored.bin"',
      result('done\\\\nLOOP_COMPLETE'),
      'fi',
    ]);
    // wA writes the file in iteration 1 and hands the run over; wB restores it from the checkpoint.
    const first = startWorker(f, 'wA', 120_000);
    const id = await submit(f);
    await until(() => starts(f).find((s) => s.iteration === 1), 30_000, 'iteration 1');
    const drain = await runRalph(['fleet', 'drain', '--worker', 'wA', '--redis', f.redis.url], f.root);
    expect(drain.code, drain.stderr).toBe(0);
    await until(() => first.stderr().includes('draining'), 30_000, 'wA to drain');
    writeFileSync(join(f.probe, 'go-1'), '');
    expect((await first.done).code).toBe(0);
    startWorker(f, 'wB', 120_000);
    const done = await finalRun(f, id);
    expect(done.worker).toBe('wB');
    const stored = await f.client.hgetallBuffer(`ralph:fleet:ralph:files:${id}`);
    expect(stored['.ralph/tdd/blob.bin']?.equals(bytes)).toBe(true);
    expect(readFileSync(join(f.probe, 'restored.bin')).equals(bytes)).toBe(true);
  }, 90_000);

  it('fleet-wide concurrency: with a global limit of 1, two runs never overlap even on a worker of concurrency 2', async () => {
    const f = await startFleet([
      'echo "start $RALPH_RUN_ID" >> "$FLEET_PROBE/order"',
      'sleep 1',
      'echo "end $RALPH_RUN_ID" >> "$FLEET_PROBE/order"',
      result('done\\\\nLOOP_COMPLETE'),
    ]);
    startWorker(f, 'wA', 2000, ['--concurrency', '2', '--global-concurrency', '1']);
    const first = await submit(f);
    const second = await submit(f);
    await finalRun(f, first);
    await finalRun(f, second);
    // Without the global limit both would start before either ended.
    const order = readFileSync(join(f.probe, 'order'), 'utf8').trim().split('\n');
    expect(order).toEqual([`start ${first}`, `end ${first}`, `start ${second}`, `end ${second}`]);
  }, 60_000);

  it('cancel kills the agent group and the run is never retried', async () => {
    // The agent's own pid ($$: exec keeps it), then it hangs forever.
    const f = await startFleet(['echo $$ > "$FLEET_PROBE/agent.pid"', STARTED, 'exec sleep 100000']);
    // A lock no loaded machine lets expire: the run must not move before the cancel reaches it.
    startWorker(f, 'wA', 60_000);
    const id = await submit(f);
    const pidFile = join(f.probe, 'agent.pid');
    const agent = Number(
      await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), 30_000, 'agent'),
    );
    expect(pidAlive(agent)).toBe(true);
    const cancel = await runRalph(['fleet', 'cancel', id.slice(0, 18), '--redis', f.redis.url], f.root);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain('kills the agent');
    // How fast is the bench's figure (bench/fleet.js, "cancel → agent gone"); here: that it dies at all,
    // with no lock expiry or iteration end to wait for (the agent hangs forever).
    await until(() => !pidAlive(agent), 15_000, 'the agent to die');
    const done = await finalRun(f, id, 'cancelled');
    expect(done.stopReason).toBe('cancelled');
    // The run's record says cancelled first; BullMQ then moves the job to its completed set.
    await until(
      async () => (await f.client.zscore('bull:ralph:completed', id)) !== null,
      15_000,
      'the job completed in BullMQ',
    );
    expect(starts(f)).toHaveLength(1);
  }, 60_000);

  it('Redis killed with -9 and restarted mid-run: the run completes, each iteration once', async () => {
    const f = await startFleet(fourIterations());
    const worker = startWorker(f, 'wA');
    const id = await submit(f);
    await until(() => starts(f).find((s) => s.iteration === 2), 30_000, 'iteration 2');
    await f.redis.kill9();
    await elapse(1000, 'the outage itself');
    await f.redis.restart();
    await finalRun(f, id);
    await expectExactlyOnce(f, id, 4);
    expect(worker.child.exitCode).toBeNull();
  }, 60_000);

  it('the fleet-wide cost cap stops scheduling iterations; status shows worker, iteration, cost, stop reason', async () => {
    const f = await startFleet([result('did $RALPH_ITERATION')]);
    startWorker(f, 'wA', 2000, ['--fleet-max-cost', '0.025']);
    const first = await submit(f);
    const stopped = await finalRun(f, first, 'stopped');
    expect(stopped.stopReason).toBe('max_cost');
    expect(stopped.iteration).toBe('3');
    const second = await submit(f);
    const notStarted = await finalRun(f, second, 'stopped');
    expect(notStarted.message).toContain('not started');
    const status = await runRalph(['fleet', 'status', '--json', '--redis', f.redis.url], f.root);
    const runs = JSON.parse(status.stdout) as Record<string, unknown>[];
    expect(runs.map((r) => [r.runId, r.state, r.worker, r.iteration, r.stopReason])).toEqual([
      [first, 'stopped', 'wA', 3, 'max_cost'],
      [second, 'stopped', 'wA', 0, 'max_cost'],
    ]);
    expect(runs[0]?.costUsd).toBeCloseTo(0.03, 6);
    const logs = await runRalph(['fleet', 'logs', first, '--redis', f.redis.url], f.root);
    expect(logs.stdout).toContain('Iteration: 3');
    // The dashboard lists fleet runs when a fleet Redis is configured.
    const dash = await openDashboard({
      track: (p) => f.workers.set('dashboard', p),
      cwd: f.root,
      env: { RALPH_REDIS_URL: f.redis.url },
    });
    const page = await (await dash.get('/')).text();
    expect(page).toContain(`<tr data-fleet-run="${first}">`);
    expect(page).toContain('max_cost');
  }, 60_000);
  it('a checkpoint that leaves out a file past 8 MB says so: the worker, the run record and `ralph fleet status`', async () => {
    // ~10.3 MB of agent output: the run log is over what a checkpoint carries per file.
    const f = await startFleet(['seq 1 1500000', 'echo LOOP_COMPLETE']);
    const w = startWorker(f, 'wA');
    const id = await submit(f);
    const done = await finalRun(f, id);
    expect(done.checkpointSkipped).toMatch(
      /^\.ralph\/logs\/[^ ]+\.log \(10(\.\d)? MB\): over the 8 MB a checkpoint carries per file/,
    );
    expect(w.stderr() + w.stdout()).toContain(`run ${id}: checkpoint left out .ralph/logs/`);
    const status = await runRalph(['fleet', 'status', '--redis', f.redis.url], f.root);
    expect(status.stdout).toContain('  checkpoint left out .ralph/logs/');
  }, 60_000);
});

describe('ralph fleet: clear errors', () => {
  it('names the unreachable Redis URL and says what to do; without any URL says where to set one', async () => {
    const dir = makeWorkspace();
    const env = { RALPH_REDIS_URL: '', XDG_CONFIG_HOME: join(dir, 'config') };
    const down = await runRalph(['fleet', 'status', '--redis', 'redis://:secret@127.0.0.1:1'], dir, env);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('cannot reach Redis at redis://:***@127.0.0.1:1');
    expect(down.stderr).not.toContain('secret');
    const none = await runRalph(['fleet', 'status'], dir, env);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('fleet.redis');
    // The flag and the variable are checked too, each named.
    const flag = await runRalph(['fleet', 'status', '--redis', 'localhost:6379'], dir, env);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('--redis must be a redis:// or rediss:// URL');
    const variable = await runRalph(['fleet', 'status'], dir, { ...env, RALPH_REDIS_URL: 'localhost:6379' });
    expect(variable.stderr).toContain('RALPH_REDIS_URL must be a redis:// or rediss:// URL');
    mkdirSync(join(dir, 'config', 'ralph'), { recursive: true });
    writeFileSync(join(dir, 'config', 'ralph', 'config.yml'), 'fleet:\n  redis: localhost:6379\n');
    const bad = await runRalph(['fleet', 'status'], dir, env);
    expect(bad.stderr).toContain('redis:// or rediss:// URL');
  });
});
