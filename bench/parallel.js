#!/usr/bin/env node
// Parallel-run benchmark: 8 independent tasks whose fake agent sleeps a fixed time, at 1, 2 and 4
// workers. Prints figures only (wall time, speed-up, where the time beyond the agents' sleep goes);
// it never asserts on timings. See bench/README.md ("bench/parallel.js").
//
//   npm run bench:parallel            (builds first)
//   BENCH_SLEEP=2 BENCH_TASKS=8 BENCH_WORKERS=1,2,4 BENCH_AGENT=shell|fake node bench/parallel.js
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig, runParallel } from '../dist/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RALPH_BIN = join(ROOT, 'bin', 'ralph');
const SLEEP_S = Number(process.env.BENCH_SLEEP ?? 2);
const TASKS = Number(process.env.BENCH_TASKS ?? 8);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
/** `shell` (default): an agent that only sleeps; `fake`: Ralph's scripted agent (a Node process). */
const AGENT = process.env.BENCH_AGENT === 'fake' ? 'fake' : 'shell';
/** The goal at 4 workers (sleeping agents: the 2 cores are not the limit). */
const TARGET_SPEEDUP_AT_4 = 3.2;

function sh(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** Zero-padded: no title is the start of another (the agent's turns match the prompt by text). */
const title = (i) => `Bench task ${String(i).padStart(3, '0')}`;

/** A repository with TASKS tasks; the agent sleeps SLEEP_S, writes a file of its own and completes. */
function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-par-'));
  const turns = [];
  for (let i = 1; i <= TASKS; i++)
    turns.push(
      `  - when: { prompt: "${title(i)}" }`,
      '    do:',
      `      - sleep: ${SLEEP_S}`,
      `      - write: { path: "out-${i}.txt", content: "task ${i}\\n" }`,
      '      - print: LOOP_COMPLETE',
    );
  writeFileSync(join(dir, 'agent.yml'), `turns:\n${turns.join('\n')}\n`);
  // shell: a `sh -c` agent that only sleeps (no CPU of its own, as the "sleeping agents");
  // fake: Ralph's scripted agent, a Node process (about 0.2 s of CPU per start).
  const cli =
    AGENT === 'shell'
      ? `cli:\n  backend: custom\n  command: sh\n  args: ["-c", "cat >/dev/null; sleep ${SLEEP_S}; echo done > \\"out-$RALPH_PARALLEL_TASK.txt\\"; echo LOOP_COMPLETE"]\n`
      : 'cli:\n  backend: fake\n  fake_script: agent.yml\n';
  writeFileSync(
    join(dir, 'ralph.yml'),
    `${cli}event_loop:\n  max_iterations: 3\n  cooldown_delay_seconds: 0\ngit:\n  commit: true\n`,
  );
  writeFileSync(join(dir, 'PROMPT.md'), 'Do the task.\n');
  sh('git', ['init', '-q', '-b', 'main'], dir);
  sh('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'add', '-A'], dir);
  sh(
    'git',
    ['-c', 'user.name=b', '-c', 'user.email=b@b', '-c', 'commit.gpgsign=false', 'commit', '-qm', 'init'],
    dir,
  );
  sh('git', ['config', 'user.name', 'bench'], dir);
  sh('git', ['config', 'user.email', 'bench@example.invalid'], dir);
  for (let i = 1; i <= TASKS; i++) sh(process.execPath, [RALPH_BIN, 'tools', 'task', 'add', title(i)], dir);
  return dir;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
const ms = (x) => `${Math.round(x)} ms`;

/** One parallel run at `workers`; the times of each task's steps, from the coordinator's events. */
async function measure(workers) {
  const dir = workspace();
  try {
    const { config } = loadConfig({ file: join(dir, 'ralph.yml'), cwd: dir });
    const t = new Map();
    const at = (task) => t.get(task) ?? t.set(task, {}).get(task);
    const start = performance.now();
    const result = await runParallel({
      workspace: dir,
      config,
      prompt: readFileSync(join(dir, 'PROMPT.md'), 'utf8'),
      backend: AGENT === 'shell' ? 'custom' : 'fake',
      workers,
      env: { ...process.env, NO_COLOR: '1' },
      reporters: [
        {
          onEvent: (e) => {
            const now = performance.now() - start;
            if (e.type === 'worker.started') at(e.task).started = now;
            if (e.type === 'worker.finished') at(e.task).finished = now;
            if (e.type === 'merge.started') at(e.task).mergeStarted = now;
            if (e.type === 'merge.merged') at(e.task).merged = now;
          },
        },
      ],
    });
    const wall = performance.now() - start;
    if (result.reason !== 'completed') throw new Error(`run ended ${result.reason}: ${result.message}`);
    const rows = [...t.values()];
    return {
      workers,
      wall,
      // Beyond the agent's sleep: process start, the worker's loop, its commit, and the exit seen.
      workerOverhead: median(rows.map((r) => r.finished - r.started - SLEEP_S * 1000)),
      // A finished worker's task until it is on the target: waiting in the queue, then the merge.
      toMerged: median(rows.map((r) => r.merged - r.finished)),
      mergeOnly: median(rows.map((r) => r.merged - r.mergeStarted)),
      firstStart: Math.min(...rows.map((r) => r.started)),
      lastMerged: Math.max(...rows.map((r) => r.merged)),
      lastFinished: Math.max(...rows.map((r) => r.finished)),
      mergeTotal: rows.reduce((a, r) => a + (r.merged - r.mergeStarted), 0),
      meanQueueWait: mean(rows.map((r) => r.mergeStarted - r.finished)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `bench/parallel.js — ${TASKS} tasks, agent sleeps ${SLEEP_S} s per task, ${AGENT === 'shell' ? 'sh -c agent (custom backend)' : 'fake backend'}, node ${process.version}`,
);
const results = [];
for (const w of WORKERS) results.push(await measure(w));
const base = results.find((r) => r.workers === 1) ?? results[0];
console.log('');
console.log(
  'workers | wall     | ideal    | speed-up | worker overhead/task | finished→merged/task | merge/task | merges total | until 1st start | last finish→end',
);
for (const r of results) {
  const ideal = Math.ceil(TASKS / r.workers) * SLEEP_S * 1000;
  console.log(
    [
      String(r.workers).padStart(7),
      ms(r.wall).padStart(8),
      ms(ideal).padStart(8),
      `${(base.wall / r.wall).toFixed(2)}×`.padStart(8),
      ms(r.workerOverhead).padStart(20),
      ms(r.toMerged).padStart(20),
      ms(r.mergeOnly).padStart(10),
      ms(r.mergeTotal).padStart(12),
      ms(r.firstStart).padStart(15),
      ms(r.wall - r.lastFinished).padStart(15),
    ].join(' | '),
  );
}
const four = results.find((r) => r.workers === 4);
if (four)
  console.log(
    `\nspeed-up at 4 workers: ${(base.wall / four.wall).toFixed(2)}× (goal ≥ ${TARGET_SPEEDUP_AT_4}×; ideal ${((Math.ceil(TASKS) * SLEEP_S) / (Math.ceil(TASKS / 4) * SLEEP_S)).toFixed(1)}×)`,
  );
