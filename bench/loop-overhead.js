#!/usr/bin/env node
// Loop-overhead benchmark for Ralph. Prints figures only: it never asserts on timings and exits 0
// unless something crashes. See bench/README.md for what is measured and the targets.
//
//   npm run bench                      (builds first, via prebench)
//   BENCH_REPS=9 node bench/loop-overhead.js
//
// Knobs (environment): BENCH_REPS (repetitions of each timing; the best, i.e. least disturbed by
// other load on the machine, is reported and the median shown beside it; default 5),
// BENCH_EMIT_RUNS (default 50).
import { spawn, spawnSync } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as thisBuild from '../dist/index.js';
import { loadConfig, probeSandbox, sandboxPolicy, wrapCommand } from '../dist/index.js';
// An internal of the package (not exported from its root): the prompt the loop assembles.
import { assemblePrompt } from '../dist/routing/assemble-prompt.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RALPH_BIN = join(ROOT, 'bin', 'ralph');
const NODE = process.execPath;
const REPS = positiveInt(process.env.BENCH_REPS, 5);
const EMIT_RUNS = positiveInt(process.env.BENCH_EMIT_RUNS, 50);
/**
 * Another build's `bin/ralph` (a package copy with a node_modules link): §1 runs its `runLoop`
 * at N = 200 in the same repetitions, so the two builds are compared under the same load.
 */
const VS_BIN = process.env.BENCH_VS_RALPH;
const vsBuild = VS_BIN
  ? await import(join(dirname(dirname(resolve(VS_BIN))), 'dist', 'index.js'))
  : undefined;
const SIZES = [100, 200, 400];
const PROMPT = 'Benchmark prompt: do nothing and exit.';

/** The in-process figure's target (issue: the harness's own bookkeeping, ≤ 3 ms/iteration). */
const TARGET_OVERHEAD_MS = 3;
/** Ralph's ms/iteration over the minimal durable Node loop's (issue 33, item 8; was 1.5×). */
const TARGET_DURABLE_RATIO = 1.35;
/** Ralph's ms/iteration with `sandbox: on` over the minimal durable loop's (issue 34). */
const TARGET_SANDBOX_RATIO = 1.5;
/** The sandbox section's two run lengths: per iteration is (T(N2) − T(N1)) / (N2 − N1), start-up cancelled. */
const SANDBOX_SIZES = [40, 140];
/** Peak RSS of the CLI at 400 iterations (issue 33, item 8), and at 1,600 (issue 22). */
const TARGET_RSS_400_MB = 70;
const TARGET_RSS_1600_MB = 80;

// ---------------------------------------------------------------------------------------------
// helpers

function positiveInt(text, fallback) {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const tempDirs = [];
function tempDir(tag) {
  const dir = mkdtempSync(join(tmpdir(), `ralph-bench-${tag}-`));
  tempDirs.push(dir);
  return dir;
}
function cleanup() {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

/** The no-op agent: /bin/true, or a tiny sh script that exits 0 where /bin/true is missing. */
function noopAgent() {
  try {
    accessSync('/bin/true', constants.X_OK);
    return '/bin/true';
  } catch {
    const dir = tempDir('agent');
    const script = join(dir, 'noop-agent.sh');
    writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    return script;
  }
}

function shQuote(s) {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

function writeWorkspace(agent, iterations, extra = []) {
  const ws = tempDir('ws');
  writeFileSync(
    join(ws, 'ralph.yml'),
    [
      'event_loop:',
      `  prompt: ${JSON.stringify(PROMPT)}`,
      `  max_iterations: ${iterations}`,
      '  cooldown_delay_seconds: 0',
      // A no-op agent moves nothing: the no-progress stop would end the run after 5 iterations.
      '  max_idle_iterations: 0',
      'cli:',
      '  backend: custom',
      `  command: ${JSON.stringify(agent)}`,
      '  prompt_mode: stdin',
      ...extra,
      '',
    ].join('\n'),
  );
  return ws;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Nearest-rank percentile. */
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

const f = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : Number.NaN);

/** Renders rows (arrays of strings) as an aligned table; numbers right-aligned. */
function table(header, rows) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  const fmt = (r) =>
    r
      .map((cell, i) => {
        const s = String(cell);
        return i === 0 ? s.padEnd(widths[i]) : s.padStart(widths[i]);
      })
      .join('  ');
  const lines = [fmt(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(fmt)];
  return lines.map((l) => `  ${l}`).join('\n');
}

const out = (s = '') => process.stdout.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------
// measurements

/**
 * Runs the loop in-process via runLoop; times from the first `iteration.started` to `loop.finished`
 * (performance.now() in the event listener). Returns ms per iteration and per-iteration start stamps.
 */
async function ralphInProcess(
  agent,
  iterations,
  { loadConfig, resolveBackend, runLoop } = thisBuild,
  extraConfig = [],
) {
  const ws = writeWorkspace(agent, iterations, extraConfig);
  const t0 = performance.now();
  const { config } = loadConfig({ file: join(ws, 'ralph.yml'), cwd: ws });
  const backend = resolveBackend(config.cli.backend, config);
  const starts = [];
  let finishedAt;
  const cpu0 = process.cpuUsage();
  const result = await runLoop({
    workspace: ws,
    config,
    prompt: PROMPT,
    backend,
    mode: 'fresh',
    env: process.env,
    reporters: [
      {
        onEvent: (e) => {
          if (e.type === 'iteration.started') starts.push(performance.now());
          else if (e.type === 'loop.finished') finishedAt = performance.now();
        },
      },
    ],
  });
  if (result.iterations !== iterations) {
    throw new Error(
      `ralph ran ${result.iterations}/${iterations} iterations (${result.stopReason}: ${result.message})`,
    );
  }
  const totalMs = finishedAt - starts[0];
  const cpu = cpuMs(process.cpuUsage(cpu0)) / iterations;
  rmSync(ws, { recursive: true, force: true });
  // wallMs: the whole call, start-up (config, the sandbox's policy and probe) included.
  return { msPerIter: totalMs / iterations, cpuPerIter: cpu, starts, finishedAt, wallMs: finishedAt - t0 };
}

/** The same agent, N times, from a bare shell `while` loop; ms per iteration. */
function bareLoop(agent, iterations) {
  const script = `i=0; while [ $i -lt ${iterations} ]; do printf %s ${shQuote(PROMPT)} | ${shQuote(agent)}; i=$((i+1)); done`;
  const t0 = performance.now();
  const r = spawnSync('/bin/sh', ['-c', script], { stdio: 'ignore' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`bare loop failed: status ${r.status} ${r.error ?? ''}`);
  return ms / iterations;
}

/** Spawns the agent like Ralph does (own process group, piped stdio, prompt on stdin); resolves at exit + close. */
function spawnOnce(agent, wrapped = { command: agent, args: [] }) {
  return new Promise((done, fail) => {
    const child = spawn(wrapped.command, wrapped.args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let pending = 3;
    const step = () => --pending === 0 && done(child.exitCode);
    child.on('error', fail);
    child.on('exit', step);
    child.stdout.on('close', step);
    child.stderr.on('close', step);
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.on('error', () => {});
    child.stdin.end(PROMPT);
  });
}

/**
 * Floor for any Node harness: spawn the agent with child_process.spawn (own process group, piped
 * stdio, prompt on stdin) and wait for exit + stream close, with no bookkeeping at all. ms/iteration.
 */
async function nodeSpawnFloor(agent, iterations) {
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) await spawnOnce(agent);
  return (performance.now() - t0) / iterations;
}

/**
 * The yardstick for Ralph's per-iteration cost: the smallest loop a durable harness could be. Per
 * iteration it spawns the same agent, writes its state atomically (temp file, fsync, rename) and
 * appends one fsync'd JSON line. Wall ms and this process's CPU ms, per iteration.
 */
async function durableNodeLoop(agent, iterations, wrapped = undefined) {
  const dir = tempDir('durable');
  const statePath = join(dir, 'state.json');
  const logPath = join(dir, 'iterations.jsonl');
  const started = new Date().toISOString();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 1; i <= iterations; i++) {
    const at = new Date().toISOString();
    const code = await spawnOnce(agent, wrapped);
    const state = { version: 1, status: 'running', started_at: started, updated_at: at, iterations: i };
    const tmp = `${statePath}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, statePath);
    const log = openSync(logPath, 'a');
    try {
      writeSync(log, `${JSON.stringify({ iteration: i, started_at: at, exit_code: code })}\n`);
      fsyncSync(log);
    } finally {
      closeSync(log);
    }
  }
  const ms = (performance.now() - t0) / iterations;
  const cpu = cpuMs(process.cpuUsage(cpu0)) / iterations;
  rmSync(dir, { recursive: true, force: true });
  return { ms, cpu };
}

/** User plus system CPU of this process (children not included), in ms. */
function cpuMs(usage) {
  return (usage.user + usage.system) / 1000;
}

/** Live JS heap (MB) after a full GC; undefined when gc cannot be exposed. */
function liveHeapMb() {
  try {
    setFlagsFromString('--expose-gc');
    runInNewContext('gc')();
    return process.memoryUsage().heapUsed / 1048576;
  } catch {
    return undefined;
  }
}

function readVmHWM(pid) {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

let gnuTime;
function hasGnuTime() {
  if (gnuTime !== undefined) return gnuTime;
  gnuTime = false;
  if (existsSync('/usr/bin/time')) {
    const r = spawnSync('/usr/bin/time', ['-f', '%M', '/bin/sh', '-c', 'exit 0'], { encoding: 'utf8' });
    gnuTime = r.status === 0 && /^\d+\s*$/m.test(r.stderr);
  }
  return gnuTime;
}

/**
 * Runs the CLI (`node bin/ralph run -q --fresh --max-iterations N`) as a child process; returns
 * its peak RSS in kB (GNU time %M, else the last VmHWM sampled every 50 ms) and its wall time.
 */
function ralphCli(agent, iterations) {
  const ws = writeWorkspace(agent, iterations);
  const cliArgs = [RALPH_BIN, 'run', '-q', '--fresh', '--max-iterations', String(iterations)];
  const useTime = hasGnuTime();
  const rssFile = join(ws, 'peak-rss.txt');
  const [cmd, args] = useTime
    ? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, NODE, ...cliArgs]]
    : [NODE, cliArgs];
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    let hwm;
    const poll = useTime
      ? undefined
      : setInterval(() => {
          hwm = readVmHWM(child.pid) ?? hwm;
        }, 50);
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallMs = performance.now() - t0;
      if (poll) clearInterval(poll);
      // 2 = a limit was reached, the expected end here.
      if (code !== 2 && code !== 0) {
        reject(new Error(`ralph run exited ${code}:\n${stderr}`));
        return;
      }
      let peakKb = hwm;
      if (useTime) peakKb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
      rmSync(ws, { recursive: true, force: true });
      resolvePromise({ peakKb, wallMs, method: useTime ? '/usr/bin/time %M' : '/proc VmHWM (50 ms poll)' });
    });
  });
}

/** Wall time of `runs` sequential spawns of a command; ms samples. */
function timeSpawns(cmd, args, runs, options) {
  spawnSync(cmd, args, options); // warm the page cache once, not counted
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, options);
    samples.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr ?? ''}`);
  }
  return samples;
}

/**
 * §6: the sandbox's cost per iteration. In the same reps: the minimal durable loop, the same loop
 * with its spawn wrapped in bwrap under a bare policy (what bubblewrap itself costs), and `runLoop`
 * with `sandbox: off` and `sandbox: on`, each Ralph figure (T(N2) − T(N1)) / (N2 − N1) of whole
 * runLoop calls so the once-per-run work (the policy gathering, the probe) cancels.
 */
async function sandboxSection(agent) {
  const probe = await probeSandbox();
  if (!probe.ok) {
    out(`6. Sandbox cost per iteration: skipped, sandbox: on cannot run here (${probe.detail})`);
    out();
    return;
  }
  const [n1, n2] = SANDBOX_SIZES;
  const ws = tempDir('bwrap-floor');
  const policy = sandboxPolicy({
    workspace: ws,
    home: tempDir('home'),
    configFiles: [],
    promptFiles: [],
    protectedPaths: [],
    gateFiles: [],
    backendHome: [],
    agentWritable: [],
    runtimeReadOnly: [],
    settings: { mode: 'on', allowRead: [], allowWrite: [], network: 'on' },
  });
  const wrapped = wrapCommand(policy, { command: agent, args: [] }, process.platform, { bwrap: probe.path });
  const on = ['sandbox: on'];
  const perIter = async (extra) => {
    const a = await ralphInProcess(agent, n1, thisBuild, extra);
    const b = await ralphInProcess(agent, n2, thisBuild, extra);
    return (b.wallMs - a.wallMs) / (n2 - n1);
  };
  await perIter(on); // warm-up: bwrap's pages, the sandbox modules
  const s = { durable: [], bwrap: [], off: [], on: [] };
  for (let rep = 0; rep < REPS; rep++) {
    s.durable.push((await durableNodeLoop(agent, n2)).ms);
    s.bwrap.push((await durableNodeLoop(agent, n2, wrapped)).ms);
    s.off.push(await perIter([]));
    s.on.push(await perIter(on));
  }
  const best = (k) => Math.min(...s[k]);
  const rows = [
    ['minimal durable loop', 'durable'],
    ['durable loop, agent through bwrap', 'bwrap'],
    ['ralph, sandbox: off', 'off'],
    ['ralph, sandbox: on', 'on'],
  ].map(([label, k]) => [
    label,
    f(best(k)),
    f(median(s[k])),
    `${f(ratio(best(k), best('durable')))}x`,
    `${f(ratio(median(s[k]), median(s.durable)))}x`,
  ]);
  out(
    `6. Sandbox cost per iteration (${probe.tool} ${probe.version ?? ''} at ${probe.path}; ralph: ` +
      `(T(${n2}) − T(${n1})) / ${n2 - n1} of whole runLoop calls; best of ${REPS} reps, and the median)`,
  );
  out(table(['loop', 'ms/it', 'median', 'over durable', 'median ratio'], rows));
  const r = ratio(best('on'), best('durable'));
  const rm = ratio(median(s.on), median(s.durable));
  const within = (x) => (x <= TARGET_SANDBOX_RATIO ? 'within' : 'ABOVE');
  out(
    `  sandbox: on over the durable loop: ${f(r)}x (${within(r)}), median ${f(rm)}x (${within(rm)})` +
      ` — target ≤ ${TARGET_SANDBOX_RATIO}x`,
  );
  out(
    `  what the sandbox adds per iteration: ${f(median(s.on) - median(s.off))} ms (medians; on over off ` +
      `${f(ratio(median(s.on), median(s.off)))}x), of which bwrap itself ${f(median(s.bwrap) - median(s.durable))} ms` +
      ` (${wrapped.args.length} arguments)`,
  );
  out();
}

// ---------------------------------------------------------------------------------------------
// main

async function main() {
  const agent = noopAgent();
  const wall0 = performance.now();
  out(`Ralph loop-overhead bench · node ${process.version} · ${process.platform}/${process.arch}`);
  out(`agent: ${agent} (prompt on stdin) · cooldown 0 · best of ${REPS} rep(s) per timing`);
  out();

  if (process.env.BENCH_ONLY === 'sandbox') {
    await ralphInProcess(agent, 20);
    await sandboxSection(agent);
    out(`bench wall time: ${f((performance.now() - wall0) / 1000, 1)} s`);
    return;
  }

  // Warm-up: JIT, module graph, page cache. Not reported.
  await ralphInProcess(agent, 20);
  bareLoop(agent, 20);
  const heapBefore = liveHeapMb();

  // 1 + 2: in-process runLoop vs the bare shell loop at each N, interleaved per repetition.
  const perN = new Map(SIZES.map((n) => [n, { ralph: [], bare: [], cpu: [], last: undefined }]));
  const floor = [];
  const durable = [];
  const durableCpu = [];
  const vs = { ms: [], cpu: [], pairs: [] };
  if (vsBuild) await ralphInProcess(agent, 20, vsBuild); // its warm-up
  for (let rep = 0; rep < REPS; rep++) {
    floor.push(await nodeSpawnFloor(agent, 200));
    const d = await durableNodeLoop(agent, 200);
    durable.push(d.ms);
    durableCpu.push(d.cpu);
    for (const n of SIZES) {
      const slot = perN.get(n);
      const r = await ralphInProcess(agent, n);
      slot.ralph.push(r.msPerIter);
      slot.cpu.push(r.cpuPerIter);
      slot.last = r;
      slot.bare.push(bareLoop(agent, n));
      if (vsBuild && n === 200) {
        const v = await ralphInProcess(agent, n, vsBuild);
        vs.ms.push(v.msPerIter);
        vs.cpu.push(v.cpuPerIter);
        vs.pairs.push(r.msPerIter / v.msPerIter);
      }
    }
  }
  const heapAfter = liveHeapMb();
  const loopIterations = REPS * SIZES.reduce((a, b) => a + b, 0);
  const rows = [];
  const overhead = new Map();
  for (const n of SIZES) {
    const { ralph, bare } = perN.get(n);
    const rm = Math.min(...ralph);
    const bm = Math.min(...bare);
    overhead.set(n, rm - bm);
    rows.push([`N=${n}`, f(rm), f(bm), f(rm - bm), `${f(ratio(rm, bm), 1)}x`, f(median(ralph))]);
  }
  out(
    '1+2. Harness overhead per iteration (in-process runLoop, first iteration.started → loop.finished; best of reps)',
  );
  out(table(['iterations', 'ralph ms/it', 'bare ms/it', 'overhead ms/it', 'ratio', 'ralph median'], rows));
  const o200 = overhead.get(200);
  out(
    `  overhead @200: ${f(o200)} ms/iteration — target ≤ ${TARGET_OVERHEAD_MS} ms/iteration over the bare loop` +
      ` (${o200 <= TARGET_OVERHEAD_MS ? 'within' : 'ABOVE'} target)`,
  );
  const fm = Math.min(...floor);
  const bare200 = Math.min(...perN.get(200).bare);
  out(
    `  of which Node's own spawn costs ${f(fm - bare200)} ms/it (bare child_process.spawn loop: ${f(fm)} ms/it);` +
      ` ralph's bookkeeping: ${f(Math.min(...perN.get(200).ralph) - fm)} ms/it`,
  );
  const dm = Math.min(...durable);
  const ralph200 = Math.min(...perN.get(200).ralph);
  const durableRatio = ratio(ralph200, dm);
  const durableMedianRatio = ratio(median(perN.get(200).ralph), median(durable));
  const within = (r) => (r <= TARGET_DURABLE_RATIO ? 'within' : 'ABOVE');
  out(
    `  over a minimal durable Node loop (spawn, atomic fsync'd state write, fsync'd JSONL append: ${f(dm)} ms/it,` +
      ` median ${f(median(durable))}): ralph ${f(ralph200)} ms/it = ${f(durableRatio)}x (${within(durableRatio)})` +
      `, median ratio ${f(durableMedianRatio)}x (${within(durableMedianRatio)}) — target ≤ ${TARGET_DURABLE_RATIO}x`,
  );
  // CPU of this process per iteration (the agent's own excluded): what a loaded disk's fsync waits do
  // not move, so it separates two builds where the wall-clock ratio cannot.
  const cpu200 = perN.get(200).cpu;
  out(
    `  CPU of the bench process per iteration: ralph ${f(Math.min(...cpu200))} ms/it (median ${f(median(cpu200))}),` +
      ` durable loop ${f(Math.min(...durableCpu))} ms/it (median ${f(median(durableCpu))}):` +
      ` ${f(ratio(Math.min(...cpu200), Math.min(...durableCpu)))}x (median ${f(ratio(median(cpu200), median(durableCpu)))}x)`,
  );
  if (vsBuild) {
    const vm = Math.min(...vs.ms);
    out(
      `  vs build (${VS_BIN}), same reps: ${f(vm)} ms/it (median ${f(median(vs.ms))}) = ${f(ratio(vm, dm))}x the durable loop` +
        ` (median ratio ${f(ratio(median(vs.ms), median(durable)))}x); CPU ${f(Math.min(...vs.cpu))} ms/it` +
        ` (median ${f(median(vs.cpu))}); this build / that one: median of reps ${f(median(vs.pairs))}x` +
        `, CPU ${f(ratio(median(cpu200), median(vs.cpu)))}x`,
    );
  }
  const flat = ratio(overhead.get(400), overhead.get(100));
  out(
    `  flatness: overhead(400)/overhead(100) = ${f(flat)} — target ≤ 1.2 (flat) (${flat <= 1.2 ? 'within' : 'ABOVE'} target)`,
  );
  // Growth inside one run: first vs last quarter of the last N=400 run.
  const { starts, finishedAt } = perN.get(400).last;
  const stamps = [...starts, finishedAt];
  const q = Math.floor(starts.length / 4);
  const firstQ = (stamps[q] - stamps[0]) / q;
  const lastQ = (stamps[stamps.length - 1] - stamps[stamps.length - 1 - q]) / q;
  out(
    `  within one 400-iteration run: iterations 1–${q} ${f(firstQ)} ms/it, last ${q} ${f(lastQ)} ms/it` +
      ` (ratio ${f(ratio(lastQ, firstQ))})`,
  );
  out();

  if (process.env.BENCH_ONLY === 'loop') return;

  await sandboxSection(agent);

  // 3: peak RSS of the CLI process at 100, 400 and 1600 iterations (V8 sizes its heap during the
  // first few hundred iterations; after that a leak-free loop stays flat).
  const RSS_SIZES = [100, 400, 1600];
  const rss = new Map();
  let method = '';
  for (const n of RSS_SIZES) {
    const samples = [];
    for (let rep = 0; rep < Math.min(REPS, 2); rep++) samples.push(await ralphCli(agent, n));
    method = samples[0].method;
    rss.set(n, { kb: Math.max(...samples.map((s) => s.peakKb)), wall: median(samples.map((s) => s.wallMs)) });
  }
  out(`3. Peak RSS of \`node bin/ralph run -q --fresh --max-iterations N\` (${method})`);
  out(
    table(
      ['iterations', 'peak RSS MB', 'CLI wall ms', 'CLI ms/it (incl. startup)'],
      RSS_SIZES.map((n) => [
        `N=${n}`,
        f(rss.get(n).kb / 1024, 1),
        f(rss.get(n).wall, 0),
        f(rss.get(n).wall / n),
      ]),
    ),
  );
  out(
    `  RSS(400)/RSS(100) = ${f(ratio(rss.get(400).kb, rss.get(100).kb))}, RSS(1600)/RSS(400) = ` +
      `${f(ratio(rss.get(1600).kb, rss.get(400).kb))} — target ≈ 1 (flat)`,
  );
  for (const [n, target] of [
    [400, TARGET_RSS_400_MB],
    [1600, TARGET_RSS_1600_MB],
  ]) {
    const peak = rss.get(n).kb / 1024;
    out(
      `  peak RSS @${n}: ${f(peak, 1)} MB — target ≤ ${target} MB (${peak <= target ? 'within' : 'ABOVE'} target)`,
    );
  }
  if (heapBefore !== undefined && heapAfter !== undefined) {
    out(
      `  live JS heap after full GC (in-process runs of §1): ${f(heapBefore)} MB after warm-up → ` +
        `${f(heapAfter)} MB after ${loopIterations} more iterations (a leak would grow with iterations)`,
    );
  }
  out();

  // 4: `ralph emit` latency vs a bare node startup.
  const ws = tempDir('emit');
  const eventsFile = join(ws, 'events.jsonl');
  writeFileSync(eventsFile, '');
  const env = { ...process.env, RALPH_EVENTS_FILE: eventsFile };
  const emit = timeSpawns(NODE, [RALPH_BIN, 'emit', 'bench.topic', 'payload'], EMIT_RUNS, {
    cwd: ws,
    env,
    encoding: 'utf8',
  });
  const bare = timeSpawns(NODE, ['-e', ''], EMIT_RUNS, { cwd: ws, env, encoding: 'utf8' });
  const lines = readFileSync(eventsFile, 'utf8').split('\n').filter(Boolean).length;
  out(`4. Startup latency, ${EMIT_RUNS} sequential runs each`);
  out(
    table(
      ['command', 'mean ms', 'p50 ms', 'p95 ms'],
      [
        [
          'ralph emit bench.topic payload',
          f(mean(emit), 1),
          f(percentile(emit, 50), 1),
          f(percentile(emit, 95), 1),
        ],
        ["node -e ''", f(mean(bare), 1), f(percentile(bare, 50), 1), f(percentile(bare, 95), 1)],
      ],
    ),
  );
  out(
    `  emit cost over bare node: ${f(percentile(emit, 50) - percentile(bare, 50), 1)} ms (p50) · ` +
      `events written: ${lines}/${EMIT_RUNS + 1} (incl. 1 warm-up)`,
  );
  out();

  // 5. What Ralph adds to each prompt: seed 000's first board-scanner iteration.
  const seedDir = join(ROOT, 'presets', 'board');
  const { config: seed } = loadConfig({ file: join(seedDir, 'ralph.yml'), cwd: seedDir });
  const scanner = seed.hats.board_scanner;
  const base = readFileSync(join(seedDir, 'PROMPT.md'), 'utf8');
  const prompt = assemblePrompt({
    base,
    completionPromise: seed.event_loop.completion_promise,
    hat: {
      id: 'board_scanner',
      name: scanner.name,
      instructions: scanner.instructions,
      publishes: scanner.publishes,
    },
    hatsMode: true,
    events: [{ topic: 'board.scan', payload: null }],
    scratchpad: null,
    scratchpadBudget: 6000,
    memories: '',
    readyTasks: [],
  });
  const userBytes = Buffer.byteLength(base.trimEnd()) + Buffer.byteLength(scanner.instructions.trimEnd());
  const ownBytes = Buffer.byteLength(prompt) - userBytes;
  out("5. Prompt size, seed 000's first iteration (board_scanner on board.scan)");
  out(
    table(
      ['part', 'bytes'],
      [
        ["user's PROMPT.md + hat instructions", String(userBytes)],
        ["Ralph's own text", String(ownBytes)],
        ['whole prompt', String(Buffer.byteLength(prompt))],
      ],
    ),
  );
  out(
    `  Ralph's own text: ${ownBytes} B — target ≤ 1536 B (ralph-orchestrator adds 17.6 KB to the same iteration)`,
  );
  out();
  out(`bench wall time: ${f((performance.now() - wall0) / 1000, 1)} s`);
}

try {
  await main();
} finally {
  cleanup();
}
