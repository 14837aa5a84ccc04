// A chatty agent through Ralph: one iteration of a `custom` agent that prints BENCH_CHATTY_MB of
// build-log lines (a verbose build or test run), through the built CLI, against the same generator
// piped straight to `cat > /dev/null` (the raw pipe) in the same run. Throughput cancels Node's and
// Ralph's startup: MB / (T(N MB) − T(0 MB)), for both. Also the CPU Ralph spends per MB, and the
// bytes left in .ralph/ per MB of output (logs.max_output_mb bounds them). Prints figures and
// ratios; never fails on a timing. Run with `npm run bench` or on its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const RALPH_BIN = join(ROOT, 'bin', 'ralph');
const MB = Number(process.env.BENCH_CHATTY_MB ?? 300);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const out = (s = '') => process.stdout.write(`${s}\n`);
const f = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

// Lines like a verbose build (~100 bytes), written in 1 MB blocks as fast as the pipe takes them.
const GENERATOR = `
const mb = Number(process.argv[2]);
let block = '';
for (let i = 0; block.length < 1048576; i++)
  block += '[build] compiling src/module-' + (i % 997) + '/file-' + i + '.ts ... ok (' + (i % 113) + ' ms) and more text\\n';
const buf = Buffer.from(block).subarray(0, 1048576);
let left = mb;
const go = () => {
  while (left > 0) {
    left--;
    if (!process.stdout.write(buf)) return process.stdout.once('drain', go);
  }
};
go();
`;

const ws = mkdtempSync(join(tmpdir(), 'ralph-bench-chatty-'));
writeFileSync(join(ws, 'gen.js'), GENERATOR);

/** The agent: reads its prompt, prints `mb` MB, then the promise. */
function writeConfig(mb) {
  writeFileSync(
    join(ws, 'ralph.yml'),
    `event_loop:\n  prompt: "build"\n  max_iterations: 1\n  max_idle_iterations: 0\ncli:\n  backend: custom\n  command: sh\n  args: ["-c", "cat > /dev/null; node gen.js ${mb}; echo LOOP_COMPLETE"]\n`,
  );
}

/** Bytes under `dir`, recursively. */
function du(dir) {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? du(p) : statSync(p).size;
  }
  return n;
}

/** Wall and CPU seconds of one command under /usr/bin/time (CPU: user + sys of it and its children), and its peak RSS. */
function timed(cmd, args, cwd) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', cmd, ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  const [wall, user, sys, rssKb] = last.split(' ').map(Number);
  return { status: r.status, wall, cpu: user + sys, rssMb: rssKb / 1024, stderr: r.stderr };
}

/** `ralph run` of the agent printing `mb` MB: seconds, Ralph's CPU (the generator's excluded), bytes left in .ralph/. */
function ralph(mb) {
  rmSync(join(ws, '.ralph'), { recursive: true, force: true });
  writeConfig(mb);
  const run = timed(process.execPath, [RALPH_BIN, 'run', '-q', '--no-tui'], ws);
  if (run.status !== 0 && run.status !== 2) throw new Error(`ralph exited ${run.status}: ${run.stderr}`);
  const gen = timed(process.execPath, ['gen.js', String(mb)], ws);
  return { wall: run.wall, cpu: run.cpu - gen.cpu, rssMb: run.rssMb, left: du(join(ws, '.ralph')) };
}

function raw(mb) {
  return timed('sh', ['-c', `node gen.js ${mb} | cat > /dev/null`], ws);
}

function main() {
  if (spawnSync('/usr/bin/time', ['true']).status !== 0) {
    out('chatty agent: skipped (needs /usr/bin/time)');
    return;
  }
  out(
    `Chatty agent: one iteration printing ${MB} MB of ~100-byte lines (built CLI, custom backend, best of ${REPS})`,
  );
  out(
    `  load average at start ${loadavg()
      .map((l) => f(l, 2))
      .join(' ')}`,
  );
  const best = { ralph: Infinity, raw: Infinity, cpu: Infinity };
  let left = 0;
  let rss = [0, 0];
  for (let rep = 0; rep < REPS; rep++) {
    const r0 = ralph(0);
    const rN = ralph(MB);
    const p0 = raw(0);
    const pN = raw(MB);
    best.ralph = Math.min(best.ralph, rN.wall - r0.wall);
    best.cpu = Math.min(best.cpu, rN.cpu - r0.cpu);
    best.raw = Math.min(best.raw, pN.wall - p0.wall);
    left = rN.left;
    rss = [Math.max(rss[0] ?? 0, r0.rssMb), Math.max(rss[1] ?? 0, rN.rssMb)];
  }
  const through = MB / best.ralph;
  const pipe = MB / best.raw;
  out(
    `  through Ralph ${f(through)} MB/s (${f(best.ralph, 2)} s)   raw pipe ${f(pipe)} MB/s (${f(best.raw, 2)} s)   ratio ${f(through / pipe, 2)}   target ≥ 100 MB/s`,
  );
  out(
    `  Ralph's CPU ${f((best.cpu * 1000) / MB, 2)} ms per MB of output (${f(MB / best.cpu)} MB per CPU second)`,
  );
  out(
    `  left in .ralph/: ${f(left / 1048576)} MB for ${MB} MB of output (${f(left / 1048576 / MB, 3)} MB per MB; logs.max_output_mb: 16 per iteration)`,
  );
  out(`  peak RSS of ralph ${f(rss[1] ?? 0)} MB (${f(rss[0] ?? 0)} MB with no output)`);
  out(
    `  load average at end ${loadavg()
      .map((l) => f(l, 2))
      .join(' ')}`,
  );
  rmSync(ws, { recursive: true, force: true });
}

main();
