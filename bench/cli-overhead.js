// Ralph's per-iteration overhead measured from outside, as a user runs it: the built CLI with a
// no-op agent through the `custom` backend, against a bare shell loop running the same agent in
// the same workspace. Three workspaces: outside git, a small git repository, and a large one
// (20,000 tracked files, ~50 MB of history). Also counts the git processes Ralph starts per
// iteration (a `git` shim first on PATH logs every call), and the time from `ralph run` to the first
// agent process as a ratio over `node -e 0`. Prints figures beside their targets; never fails on a
// timing. Run with `npm run bench` (after loop-overhead.js) or on its own.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const RALPH_BIN = join(ROOT, 'bin', 'ralph');
const REPS = Number(process.env.BENCH_REPS ?? 3);
const SMALL = 20;
const LARGE = 120;
const LARGE_REPO_FILES = Number(process.env.BENCH_LARGE_FILES ?? 20_000);
const LARGE_REPO_HISTORY_MB = Number(process.env.BENCH_LARGE_HISTORY_MB ?? 50);
const START_RUNS = Number(process.env.BENCH_START_RUNS ?? 10);
/**
 * Another build's `bin/ralph` (a copy of bin/, dist/, package.json, presets/ and a node_modules
 * link): its start is measured in the same rounds, in workspaces of its own (the config cache is
 * keyed by the build), so the two builds are compared under the same load.
 */
const VS_BIN = process.env.BENCH_VS_RALPH;
/**
 * Time to the first agent process over `node -e 0` (issue 33, item 8): in a workspace that has run
 * before (the config cache filled) and in a fresh one.
 */
const TARGET_START_RATIO = { warm: 2, fresh: 2.5 };

const dirs = [];
const tempDir = (tag) => {
  const d = mkdtempSync(join(tmpdir(), `ralph-bench-${tag}-`));
  dirs.push(d);
  return d;
};
const out = (s = '') => process.stdout.write(`${s}\n`);
const f = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const git = (cwd, ...args) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], {
    cwd,
    stdio: 'ignore',
  });
const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A PATH directory whose `git` logs every call to `log`, then runs the real git. */
function gitShim(log) {
  const bin = tempDir('shim');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(realGit)} "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  return bin;
}

function writeConfig(ws) {
  writeFileSync(
    join(ws, 'ralph.yml'),
    'event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\n  max_idle_iterations: 0\ncli:\n  backend: custom\n  command: /bin/true\n  prompt_mode: stdin\n',
  );
}

function outsideGit() {
  const ws = tempDir('plain');
  writeConfig(ws);
  return ws;
}

function smallRepo() {
  const ws = tempDir('git');
  writeConfig(ws);
  mkdirSync(join(ws, 'src'));
  for (let i = 0; i < 20; i++) writeFileSync(join(ws, 'src', `f${i}.txt`), `file ${i}\n`);
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'init');
  return ws;
}

/** 20,000 tracked files and ~50 MB of history (two incompressible blobs replacing each other). */
function largeRepo() {
  const ws = tempDir('large');
  writeConfig(ws);
  for (let d = 0; d < LARGE_REPO_FILES / 100; d++) {
    const dir = join(ws, 'src', `d${d}`);
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 100; i++)
      writeFileSync(join(dir, `f${i}.txt`), `module ${d}/${i}\n${'x'.repeat(900)}\n`);
  }
  git(ws, 'init', '-q');
  const half = Math.floor((LARGE_REPO_HISTORY_MB * 1048576) / 2);
  writeFileSync(join(ws, 'blob.bin'), randomBytes(half));
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'init');
  writeFileSync(join(ws, 'blob.bin'), randomBytes(half));
  git(ws, 'commit', '-qam', 'history');
  return ws;
}

/** The clock `date +%s%N` reads (CLOCK_REALTIME), in ms, from this process. */
const realtimeMs = () => performance.timeOrigin + performance.now();

/**
 * A workspace whose agent writes the moment it starts (`date +%s%N`, ns since the epoch) to a file:
 * how long `ralph run` takes to reach the agent, config, preflight and module loading included.
 */
function firstSpawnWorkspace(ws) {
  // Outside the workspace (Ralph's progress check would see it), in a directory removed at the end.
  const stamp = join(tempDir('stamp'), 'agent-start');
  const script = `date +%s%N > ${JSON.stringify(stamp)}; cat > /dev/null`;
  writeFileSync(
    join(ws, 'ralph.yml'),
    `event_loop:\n  prompt: "no-op"\n  cooldown_delay_seconds: 0\n  max_idle_iterations: 0\ncli:\n  backend: custom\n  command: /bin/sh\n  args: ["-c", ${JSON.stringify(script)}]\n  prompt_mode: stdin\n`,
  );
  return stamp;
}

/** ms from starting `ralph run -q --fresh --max-iterations 1` to its agent's first instruction. */
function ralphToAgent(ws, stamp, bin = RALPH_BIN) {
  rmSync(stamp, { force: true });
  const t0 = realtimeMs();
  const r = spawnSync(process.execPath, [bin, 'run', '-q', '--fresh', '--max-iterations', '1'], {
    cwd: ws,
    // The config cache lives in the user's cache directory: the bench's own, removed at its end.
    env: { ...process.env, XDG_CACHE_HOME: benchCache() },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 2) throw new Error(`ralph exited ${r.status}: ${r.stderr}`);
  return Number(readFileSync(stamp, 'utf8').trim()) / 1e6 - t0;
}

/** Wall ms of `node -e 0`: Node's own start and exit, the floor for any Node CLI. */
function nodeStart(ws) {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { cwd: ws, stdio: 'ignore' });
  return performance.now() - t0;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A workspace's first runs, not counted: they write .ralph/.gitignore and the config cache. */
function warmStart(ws, stamp, bin) {
  const written = Date.now();
  ralphToAgent(ws, stamp, bin); // warm the page cache; writes the config cache (keyed on contents)
  // An older build (BENCH_VS_RALPH) trusts its cache only for a ralph.yml 2 s old: wait that out.
  if (bin !== RALPH_BIN)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, written + 2100 - Date.now()));
  ralphToAgent(ws, stamp, bin); // the first hit
}

let cacheHome;
/** The bench's `$XDG_CACHE_HOME`, made on first use. */
const benchCache = () => {
  cacheHome ??= tempDir('cache');
  return cacheHome;
};

/**
 * Startup, ralph vs node, interleaved (one of each in turn, so drifting load hits both), in two
 * kinds of workspace: a warm one that has run before (its config cache filled) and a fresh one
 * made for each run (no `.ralph/`, no cache entry: the config is parsed and validated). With
 * BENCH_VS_RALPH the other build too, in workspaces of its own, in the same rounds.
 */
function measureStart(make) {
  const builds = [RALPH_BIN, ...(VS_BIN ? [VS_BIN] : [])];
  const warm = builds.map((bin) => {
    const ws = make();
    const stamp = firstSpawnWorkspace(ws);
    warmStart(ws, stamp, bin);
    return { ws, stamp };
  });
  const ms = { warm: builds.map(() => []), fresh: builds.map(() => []) };
  const node = [];
  for (let i = 0; i < START_RUNS; i++) {
    // Alternate which build goes first, so neither always follows the other's exit.
    const order = i % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
    for (const b of order) ms.warm[b].push(ralphToAgent(warm[b].ws, warm[b].stamp, builds[b]));
    for (const b of order) {
      const ws = make(); // made before the clock starts: only Ralph's first run in it is timed
      ms.fresh[b].push(ralphToAgent(ws, firstSpawnWorkspace(ws), builds[b]));
    }
    node.push(nodeStart(warm[0].ws));
  }
  const ratioOver = (xs, ys) => median(xs.map((x, i) => x / ys[i]));
  const kind = (k) => ({
    ms: ms[k][0],
    ratio: ratioOver(ms[k][0], node),
    ...(VS_BIN
      ? { vs: ms[k][1], vsRatio: ratioOver(ms[k][1], node), pairRatio: ratioOver(ms[k][0], ms[k][1]) }
      : {}),
  });
  return { node, warm: kind('warm'), fresh: kind('fresh') };
}

function startup() {
  out(
    `Time from \`ralph run\` to the first agent process, over \`node -e 0\` (${START_RUNS} runs each, interleaved)`,
  );
  out(
    '  warm: a workspace that has run before (config cache filled); fresh: a new workspace for each run (no .ralph/, no cache entry)',
  );
  const cases = [
    ['outside git', () => tempDir('start-plain')],
    ['git workspace', smallRepo],
  ];
  const w = Math.max(...cases.map(([name]) => name.length)) + 7;
  out(
    `  ${'workspace'.padEnd(w)}  ralph→agent ms (min / median)  node -e 0 ms (min / median)  ratio (median of pairs)`,
  );
  const ms = (xs) => `${f(Math.min(...xs), 0)} / ${f(median(xs), 0)}`;
  for (const [name, make] of cases) {
    const m = measureStart(make);
    for (const k of ['warm', 'fresh']) {
      const r = m[k];
      const target = TARGET_START_RATIO[k];
      const verdict = r.ratio <= target ? 'within' : 'ABOVE';
      out(
        `  ${`${name}, ${k}`.padEnd(w)}  ${ms(r.ms).padStart(29)}  ${ms(m.node).padStart(27)}  ${f(r.ratio)}x (target ≤ ${target}x, ${verdict})`,
      );
      if (VS_BIN)
        out(
          `  ${'  vs build'.padEnd(w)}  ${ms(r.vs).padStart(29)}  ${''.padStart(27)}  ${f(r.vsRatio)}x; this build / that one, median of pairs: ${f(r.pairRatio)}x`,
        );
    }
  }
  if (VS_BIN) out(`  (vs build: ${VS_BIN})`);
  out();
}

/** Wall ms of `ralph run -q --fresh --max-iterations n` in `ws`, and the git calls it made. */
function ralphRun(ws, n) {
  const log = join(ws, '..', `${ws.split('/').pop()}-git.log`);
  rmSync(log, { force: true });
  const env = { ...process.env, PATH: `${gitShim(log)}${delimiter}${process.env.PATH}` };
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [RALPH_BIN, 'run', '-q', '--fresh', '--max-iterations', String(n)], {
    cwd: ws,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - t0;
  if (r.status !== 2) throw new Error(`ralph exited ${r.status}: ${r.stderr}`);
  let calls = [];
  try {
    calls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } catch {}
  return { ms, calls };
}

/** The bare loop: the same agent with the same stdin, n times, from sh in `ws`. ms/iteration. */
function bare(ws, n) {
  const t0 = performance.now();
  spawnSync('/bin/sh', ['-c', `i=0; while [ $i -lt ${n} ]; do printf no-op | /bin/true; i=$((i+1)); done`], {
    cwd: ws,
    stdio: 'ignore',
  });
  return (performance.now() - t0) / n;
}

/** Per-iteration figures: (T(LARGE) − T(SMALL)) / (LARGE − SMALL) cancels Node's startup. Best of REPS. */
function measure(ws) {
  const per = [];
  const bares = [];
  let gitPerIter = Number.NaN;
  let gitKinds = [];
  for (let rep = 0; rep < REPS; rep++) {
    const a = ralphRun(ws, SMALL);
    const b = ralphRun(ws, LARGE);
    per.push((b.ms - a.ms) / (LARGE - SMALL));
    bares.push(bare(ws, LARGE));
    gitPerIter = (b.calls.length - a.calls.length) / (LARGE - SMALL);
    // `-C <dir>` and the runner's hardening (--no-pager, -c …) come before the subcommand.
    const count = (calls) =>
      calls.map((c) => c.replace(/^-C \S+ (?:--no-pager |-c \S+ )*/, '').split(' ')[0]);
    gitKinds = [...new Set(count(b.calls))];
  }
  const ralph = Math.min(...per);
  const bareMs = Math.min(...bares);
  return { ralph, bare: bareMs, overhead: ralph - bareMs, gitPerIter, gitKinds };
}

function main() {
  startup();
  if (process.env.BENCH_ONLY === 'startup') return cleanup();
  out('CLI overhead per iteration, from outside (built CLI, no-op agent via `custom`, best of reps)');
  out(
    `iterations ${SMALL} and ${LARGE}: per iteration = (T${LARGE} − T${SMALL}) / ${LARGE - SMALL}, which cancels startup`,
  );
  out();
  const t0 = performance.now();
  const large = largeRepo();
  out(
    `  (large repo: ${LARGE_REPO_FILES} files, ~${LARGE_REPO_HISTORY_MB} MB history, made in ${f((performance.now() - t0) / 1000, 1)} s)`,
  );
  const cases = [
    ['outside git', outsideGit(), 5],
    ['git workspace', smallRepo(), 10],
    [`large repo (${LARGE_REPO_FILES} files)`, large, 25],
  ];
  const rows = [];
  for (const [name, ws, target] of cases) {
    const m = measure(ws);
    rows.push({ name, target, ...m });
  }
  const w = Math.max(...rows.map((r) => r.name.length));
  out(`  ${'workspace'.padEnd(w)}  ralph ms/it  bare ms/it  overhead ms/it  target   ratio  git calls/it`);
  for (const r of rows) {
    out(
      `  ${r.name.padEnd(w)}  ${f(r.ralph).padStart(11)}  ${f(r.bare).padStart(10)}  ${f(r.overhead).padStart(14)}  ≤ ${String(r.target).padStart(2)} ms  ${f(r.overhead / r.target).padStart(5)}  ${f(r.gitPerIter, 1).padStart(12)}${r.gitKinds.length ? ` (${r.gitKinds.join(', ')})` : ''}`,
    );
  }
  out(
    `  targets: overhead ≤ 5 ms outside git, ≤ 10 ms in git, ≤ 25 ms in the large repo; ≤ 1 git process per iteration`,
  );
  cleanup();
}

function cleanup() {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

main();
