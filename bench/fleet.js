#!/usr/bin/env node
// Fleet benchmark (BullMQ + Redis). Prints figures only; it never asserts on timings and exits 0
// unless something crashes. See bench/README.md for what is measured and the goals.
//
//   npm run bench:fleet                (builds first)
//   BENCH_AGENT_SECONDS=2 node bench/fleet.js
//
// Needs Debian's redis-server; it starts one on a free 127.0.0.1 port with AOF in a temp dir.
// Knobs (environment): BENCH_AGENT_SECONDS (the scripted agent's fixed duration per iteration,
// default 1), BENCH_ITERATIONS (per run, default 3), BENCH_RUNS_PER_WORKER (default 3),
// BENCH_REPS (latency repetitions, default 5), BENCH_LOCK_MS (workers' --lock-ms, default 2000, as the CLI).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBullmqEngine } from '../dist/fleet/bullmq-engine.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RALPH_BIN = join(ROOT, 'bin', 'ralph');
const num = (text, fallback) => (Number(text) > 0 ? Number(text) : fallback);
const AGENT_SECONDS = num(process.env.BENCH_AGENT_SECONDS, 1);
const ITERATIONS = Math.floor(num(process.env.BENCH_ITERATIONS, 3));
const RUNS_PER_WORKER = Math.floor(num(process.env.BENCH_RUNS_PER_WORKER, 3));
const REPS = Math.floor(num(process.env.BENCH_REPS, 5));
const LOCK_MS = Math.floor(num(process.env.BENCH_LOCK_MS, 2000));

if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.error('bench/fleet.js needs redis-server (Debian: apt-get install redis-server)');
  process.exit(1);
}

const base = mkdtempSync(join(tmpdir(), 'ralph-bench-fleet-'));
const children = [];
function cleanup() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(check, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await check();
    if (v) return v;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function freePort() {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// setup: Redis, a bare remote, a probe file the agent appends `<ms> <run> <iteration> <workspace>` to

const port = await freePort();
const redisDir = join(base, 'redis');
mkdirSync(redisDir);
const redis = spawn(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--dir', redisDir, '--appendonly', 'yes', '--save', ''],
  { stdio: 'ignore' },
);
children.push(redis);
const url = `redis://127.0.0.1:${port}`;
const probe = join(base, 'probe');
mkdirSync(probe);
const started = join(probe, 'started');

const src = join(base, 'src');
mkdirSync(src);
const git = (dir, ...args) =>
  execFileSync('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
git(src, 'init', '-q', '-b', 'main');
writeFileSync(
  join(src, 'ralph.yml'),
  `event_loop:\n  prompt_file: PROMPT.md\n  max_iterations: ${ITERATIONS + 1}\n  cooldown_delay_seconds: 0\ncli:\n  backend: fake\n  fake_script: fake-agent.yml\n`,
);
writeFileSync(join(src, 'PROMPT.md'), 'benchmark\n');
// Each iteration logs its start (and its shell's pid); with probe/hang present it then hangs, for
// the cancel measurement (the agent's group must be killed from outside).
const record =
  '      - run: "echo $(date +%s%3N) $RALPH_RUN_ID {{iteration}} $RALPH_WORKSPACE_ROOT $$ >> {{env.FLEET_PROBE}}/started; if [ -f {{env.FLEET_PROBE}}/hang ]; then sleep 60; fi"';
writeFileSync(
  join(src, 'fake-agent.yml'),
  [
    'turns:',
    `  - when: { max_iteration: ${ITERATIONS - 1} }`,
    '    do:',
    record,
    `      - sleep: ${AGENT_SECONDS}`,
    '      - result: { text: "ok", cost_usd: 0.001 }',
    '  - do:',
    record,
    `      - sleep: ${AGENT_SECONDS}`,
    '      - result: { text: "done\\nLOOP_COMPLETE", cost_usd: 0.001 }',
  ].join('\n'),
);
git(src, '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'add', '-A');
git(src, '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'bench');
const remote = join(base, 'remote.git');
git(base, 'clone', '-q', '--bare', src, remote);

await until(
  async () => {
    try {
      const e = await openBullmqEngine(url);
      await e.close();
      return true;
    } catch {
      return false;
    }
  },
  10_000,
  'redis-server',
);
const engine = await openBullmqEngine(url);

function starts() {
  if (!existsSync(started)) return [];
  return readFileSync(started, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [ms, run, it, ws, pid] = l.split(' ');
      return {
        ms: Number(ms),
        run,
        iteration: Number(it),
        worker: ws.slice(base.length + 1).split('/')[0],
        pid: Number(pid),
      };
    });
}

let workerSeq = 0;
function startWorker(lockMs = LOCK_MS) {
  const id = `w${++workerSeq}`;
  const child = spawn(
    process.execPath,
    [
      RALPH_BIN,
      'fleet',
      'worker',
      '--id',
      id,
      '--workdir',
      join(base, id),
      '--lock-ms',
      String(lockMs),
      '--redis',
      url,
    ],
    {
      cwd: base,
      env: { ...process.env, FLEET_PROBE: probe, XDG_STATE_HOME: join(base, 'state') },
      stdio: 'ignore',
    },
  );
  children.push(child);
  return { id, child };
}
async function stopWorkers(workers) {
  for (const w of workers) {
    if (w.child.exitCode !== null || w.child.signalCode !== null) continue;
    const gone = new Promise((r) => w.child.once('exit', r));
    w.child.kill('SIGKILL');
    await gone;
  }
}
let runSeq = 0;
async function submit() {
  const runId = `bench-${Date.now()}-${++runSeq}`;
  const at = Date.now();
  await engine.submit({ repo: remote, branch: 'main', submittedAt: new Date(at).toISOString() }, runId);
  return { runId, at };
}
const finished = async (ids) =>
  (await Promise.all(ids.map((id) => engine.get(id)))).every((r) => r?.state === 'completed');
/** Workers are up once they have taken a first run: warm them with one run each. */
async function warm(workers) {
  const runs = await Promise.all(workers.map(() => submit()));
  await until(() => finished(runs.map((r) => r.runId)), 120_000, 'warm-up runs');
}

// ---------------------------------------------------------------------------------------------

console.log(
  `fleet bench: agent ${AGENT_SECONDS} s per iteration, ${ITERATIONS} iterations per run, lock ${LOCK_MS} ms, Redis 127.0.0.1:${port} (AOF)`,
);

console.log('\n1. throughput (runs/hour) — each worker has concurrency 1; ideal = workers × 3600 / run time');
const ideal = 3600 / (AGENT_SECONDS * ITERATIONS);
let one;
for (const n of [1, 2, 4]) {
  const workers = Array.from({ length: n }, () => startWorker());
  await warm(workers);
  const t0 = Date.now();
  const runs = await Promise.all(Array.from({ length: n * RUNS_PER_WORKER }, () => submit()));
  await until(() => finished(runs.map((r) => r.runId)), 600_000, `${n}-worker runs`);
  const perHour = (runs.length * 3600_000) / (Date.now() - t0);
  one ??= perHour;
  console.log(
    `   ${n} worker(s): ${runs.length} runs in ${fmt(Date.now() - t0)} → ${perHour.toFixed(0)} runs/hour (${(perHour / one).toFixed(2)}× one worker; ${((perHour / (n * ideal)) * 100).toFixed(0)}% of the agent-bound ideal)`,
  );
  await stopWorkers(workers);
}

console.log('\n2. submit → first iteration (an idle, warm worker; includes clone, config, agent start)');
{
  const workers = [startWorker()];
  await warm(workers);
  const lat = [];
  for (let i = 0; i < REPS; i++) {
    const { runId, at } = await submit();
    const first = await until(
      () => starts().find((s) => s.run === runId && s.iteration === 1),
      60_000,
      'first iteration',
    );
    lat.push(first.ms - at);
    await until(() => finished([runId]), 60_000, 'run');
  }
  console.log(`   p50 ${fmt(median(lat))}, max ${fmt(Math.max(...lat))} over ${REPS} runs`);
  await stopWorkers(workers);
}

console.log(
  `\n3. kill -9 → resume (2 workers, lock ${LOCK_MS} ms; goal ≤ 5 s): the interrupted iteration restarts elsewhere`,
);
{
  const lat = [];
  for (let i = 0; i < Math.min(REPS, 3); i++) {
    const workers = [startWorker(), startWorker()];
    await warm(workers);
    const { runId } = await submit();
    const s = await until(
      () => starts().find((x) => x.run === runId && x.iteration === 2),
      60_000,
      'iteration 2',
    );
    const owner = workers.find((w) => w.id === s.worker);
    const killedAt = Date.now();
    owner.child.kill('SIGKILL');
    const resumed = await until(
      () => starts().find((x) => x.run === runId && x.iteration === 2 && x.worker !== owner.id),
      60_000,
      'resume',
    );
    lat.push(resumed.ms - killedAt);
    await until(() => finished([runId]), 60_000, 'resumed run');
    await stopWorkers(workers);
  }
  console.log(`   p50 ${fmt(median(lat))}, max ${fmt(Math.max(...lat))} over ${lat.length} kills`);
}

console.log('\n4. cancel → agent gone (goal < 1 s): `ralph fleet cancel` reaches the owner over pub/sub');
{
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const workers = [startWorker()];
  await warm(workers);
  writeFileSync(join(probe, 'hang'), '');
  const lat = [];
  for (let i = 0; i < REPS; i++) {
    const { runId } = await submit();
    const s = await until(() => starts().find((x) => x.run === runId), 60_000, 'the hanging iteration');
    await sleep(200); // the agent is in its sleep
    const at = Date.now();
    const cancel = spawn(process.execPath, [RALPH_BIN, 'fleet', 'cancel', runId, '--redis', url], {
      stdio: 'ignore',
    });
    await until(() => !alive(s.pid), 30_000, 'the agent to die');
    lat.push(Date.now() - at);
    await new Promise((r) => (cancel.exitCode === null ? cancel.once('exit', r) : r()));
  }
  rmSync(join(probe, 'hang'));
  console.log(
    `   p50 ${fmt(median(lat))}, max ${fmt(Math.max(...lat))} over ${REPS} cancels (includes starting the \`ralph fleet cancel\` process)`,
  );
  await stopWorkers(workers);
}

await engine.close();
cleanup();
