// The model ladder's saving: a scripted task mix (mostly easy, some medium, one hard) run through
// the built CLI with the scripted agent twice — on a ladder (cli.models: [cheap, mid, strong],
// escalate_after: 1) and always on the strong model — one `ralph run` per task. The agent solves a
// task only on a model strong enough for it and reports a per-iteration cost by model (list-price
// ratios like a small, a mid and a large model). Prints both bills, the ratio and the tasks each
// finished; never fails on a figure. Run with `npm run bench:ladder`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const RALPH_BIN = join(ROOT, 'bin', 'ralph');
const out = (s = '') => process.stdout.write(`${s}\n`);
const PRICE = { cheap: 0.01, mid: 0.05, strong: 0.25 };
const MIX = [...Array(6).fill('easy'), ...Array(3).fill('medium'), 'hard'];

// The first turn whose model is strong enough for the task's difficulty completes it; others fail.
const AGENT = `turns:
  - when: { model: strong }
    do: [{ result: { text: LOOP_COMPLETE, cost_usd: ${PRICE.strong} } }]
  - when: { model: mid, file_missing: hard }
    do: [{ result: { text: LOOP_COMPLETE, cost_usd: ${PRICE.mid} } }]
  - when: { model: cheap, file_exists: easy }
    do: [{ result: { text: LOOP_COMPLETE, cost_usd: ${PRICE.cheap} } }]
  - when: { model: mid }
    do: [{ result: { text: "not this time", cost_usd: ${PRICE.mid} } }, { exit: 1 }]
  - do: [{ result: { text: "not this time", cost_usd: ${PRICE.cheap} } }, { exit: 1 }]
`;

/** One task in a workspace of its own: its cost, iterations and whether it completed. */
function runTask(difficulty, models) {
  const ws = mkdtempSync(join(tmpdir(), 'ralph-bench-ladder-'));
  try {
    writeFileSync(join(ws, difficulty), '');
    writeFileSync(join(ws, 'fake-agent.yml'), AGENT);
    writeFileSync(
      join(ws, 'ralph.yml'),
      `event_loop:\n  prompt: "do the task"\n  max_iterations: 5\n  max_consecutive_failures: 5\ncli:\n  backend: fake\n  fake_script: fake-agent.yml\n  models: [${models.join(', ')}]\n  escalate_after: 1\n`,
    );
    const r = spawnSync(process.execPath, [RALPH_BIN, 'run', '--no-tui', '-q'], {
      cwd: ws,
      encoding: 'utf8',
    });
    const state = JSON.parse(readFileSync(join(ws, '.ralph', 'state.json'), 'utf8'));
    return { done: r.status === 0, cost: state.cost_usd, iterations: state.iterations };
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

function bill(models) {
  const runs = MIX.map((d) => runTask(d, models));
  return {
    cost: runs.reduce((s, r) => s + r.cost, 0),
    iterations: runs.reduce((s, r) => s + r.iterations, 0),
    done: runs.filter((r) => r.done).length,
  };
}

out(
  `model ladder: ${MIX.length} tasks (${MIX.filter((d) => d === 'easy').length} easy, ${MIX.filter((d) => d === 'medium').length} medium, ${MIX.filter((d) => d === 'hard').length} hard), per-iteration price ${Object.entries(
    PRICE,
  )
    .map(([m, p]) => `${m} $${p}`)
    .join(', ')}`,
);
const ladder = bill(['cheap', 'mid', 'strong']);
const strong = bill(['strong']);
const line = (name, b) =>
  out(
    `  ${name.padEnd(14)} $${b.cost.toFixed(4)} · ${b.iterations} iterations · ${b.done}/${MIX.length} tasks done`,
  );
line('ladder', ladder);
line('always strong', strong);
out(
  `  ladder / always strong: ${(ladder.cost / strong.cost).toFixed(2)}× the cost, same tasks done: ${ladder.done === strong.done ? 'yes' : 'no'}`,
);
