import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/workspace.ts';

const SRC = join(ROOT, 'src');

/**
 * DESIGN.md §3: imports point downwards only. The rank of every top-level folder of src/ (and of the
 * two root files); a folder missing here fails the test, so a new folder must be placed on purpose.
 */
const LAYERS: Record<string, number> = {
  'index.ts': 7, // the library's entry: re-exports the engine API
  cli: 6,
  tui: 5,
  dashboard: 5,
  fleet: 5,
  parallel: 5,
  demo: 5, // the demo workspace the CLI writes
  'fake-agent': 5, // a stand-alone executable (the scripted agent)
  engine: 4,
  agent: 3, // the one agent-turn runner: iterations, review, doctor --probe
  human: 3,
  observe: 3,
  routing: 2,
  gates: 2,
  backends: 2,
  git: 2,
  workflows: 2, // parsers of the workflow files (checklist, TDD state and reports)
  process: 1,
  state: 1,
  config: 1,
  'errors.ts': 0, // typed errors, used by every layer
  'paths-package.ts': 0, // where the installed package's files are
};
/** Below the CLI: no console I/O, no process exit, no imports of the CLI or UIs. */
const CORE_RANK = 4;

/**
 * The supervisor is called by the agent-turn runner only (DESIGN.md §3), so every agent process
 * runs under the same caps, idle timeout, heartbeat and sweep. Besides: the gate runner (gate
 * commands are not agents) and the package entry (a re-export of the library API).
 */
const SUPERVISOR = join(SRC, 'process', 'supervisor.ts');
const SUPERVISOR_USERS = ['agent', 'process'];
const SUPERVISOR_EXCEPTIONS = ['gates/run-gate.ts', 'index.ts'];

function supervisorCallers(graph: Map<string, string[]>): string[] {
  return [...graph]
    .filter(([file, targets]) => targets.includes(SUPERVISOR) && !SUPERVISOR_USERS.includes(area(file)))
    .map(([file]) => relative(SRC, file))
    .filter((f) => !SUPERVISOR_EXCEPTIONS.includes(f.split(sep).join('/')));
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The top-level folder (or root file) of src/ that holds a file. */
const area = (file: string) => relative(SRC, file).split(sep)[0] as string;

/** Relative imports of a file (static, `export … from`, and dynamic `import()`), resolved to paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] as string);
  return specs.map((s) => resolve(dirname(file), s));
}

const all = files(SRC);
const graph = new Map(all.map((f) => [f, importsOf(f)]));

/** Every cycle of a graph, each reported once as a path a → b → … → a. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const to of graph.get(f) ?? []) {
      if (state.get(to) === 'open') found.push([...stack.slice(stack.indexOf(to)), to]);
      else if (!state.has(to) && graph.has(to)) visit(to);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

/** Imports that point up: into a higher layer than the importing file's. Same-layer imports are fine. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const from = area(file);
    for (const target of targets) {
      const to = area(target);
      if (to !== from && (LAYERS[to] ?? 99) > (LAYERS[from] ?? -1))
        upward.push(
          `${relative(SRC, file)} → ${relative(SRC, target)} (${from} ${LAYERS[from]} → ${to} ${LAYERS[to]})`,
        );
    }
  }
  return upward;
}

/** The folder graph: an edge from one top-level folder to another when any file imports across. */
function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const edges = folders.get(area(file)) ?? new Set<string>();
    for (const t of targets) if (area(t) !== area(file)) edges.add(area(t));
    folders.set(area(file), edges);
  }
  return new Map([...folders].map(([k, v]) => [k, [...v]]));
}

/**
 * The engine is split by sub-domain (DESIGN.md §3): the run drives iterations, an iteration runs the
 * steps, all of them share the run context, and the decisions (pure) sit at the bottom.
 */
const ENGINE_DOMAINS: Record<string, number> = { run: 4, iteration: 3, steps: 2, context: 1, decide: 0 };
const ENGINE = join(SRC, 'engine');
const engineDomain = (file: string) => relative(ENGINE, file).split(sep)[0] as string;

function upwardEngineImports(graph: Map<string, string[]>): string[] {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    if (area(file) !== 'engine') continue;
    for (const target of targets) {
      if (area(target) !== 'engine') continue;
      const from = engineDomain(file);
      const to = engineDomain(target);
      if (to !== from && (ENGINE_DOMAINS[to] ?? 99) > (ENGINE_DOMAINS[from] ?? -1))
        upward.push(`${relative(SRC, file)} → ${relative(SRC, target)} (${from} → ${to})`);
    }
  }
  return upward;
}

const rel = (c: string[]) => c.map((f) => relative(SRC, f) || f);

describe('architecture (DESIGN.md §3)', () => {
  it('places every folder of src/ in a layer', () => {
    const unplaced = [...new Set(all.map(area))].filter((a) => !(a in LAYERS));
    expect(unplaced, 'add the folder to LAYERS at its DESIGN.md §3 rank').toEqual([]);
  });

  it('has only downward imports: a file imports its own layer or a lower one', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no import cycles between files', () => {
    expect(cycles(graph).map(rel)).toEqual([]);
  });

  it('has no cycles between folders (two folders of one layer never import each other)', () => {
    expect(cycles(folderGraph(graph))).toEqual([]);
  });

  it('keeps every engine file in a sub-domain folder, and imports between them point down', () => {
    const loose = all.filter((f) => area(f) === 'engine' && !(engineDomain(f) in ENGINE_DOMAINS));
    expect(
      loose.map((f) => relative(SRC, f)),
      'place the file in engine/{run,iteration,steps,context,decide}',
    ).toEqual([]);
    expect(upwardEngineImports(graph)).toEqual([]);
  });

  it('lets only the agent-turn runner start agents through the supervisor', () => {
    expect(supervisorCallers(graph), 'run the agent with runAgentTurn (src/agent/agent-turn.ts)').toEqual([]);
  });

  it('watches files only through the careful watcher and sleeps with node:timers/promises (DESIGN.md §3)', () => {
    const offenders = all.flatMap((file) => {
      const name = relative(SRC, file).split(sep).join('/');
      const text = readFileSync(file, 'utf8');
      const found: string[] = [];
      if (name !== 'git/tree-watch.ts' && /import \{[^}]*\bwatch\b[^}]*\} from 'node:fs'/.test(text))
        found.push(`${name}: fs.watch (use watchTree from git/tree-watch.ts)`);
      if (/new Promise[^;]*setTimeout\(/.test(text))
        found.push(`${name}: a hand-written sleep (use setTimeout from node:timers/promises)`);
      return found;
    });
    expect(offenders).toEqual([]);
  });

  it('resolves every relative import to a file', () => {
    const missing = [...graph].flatMap(([f, ts]) =>
      ts.filter((t) => !graph.has(t)).map((t) => `${relative(SRC, f)} → ${relative(SRC, t)}`),
    );
    expect(missing).toEqual([]);
  });

  const core = all.filter((f) => (LAYERS[area(f)] ?? 99) <= CORE_RANK);
  it.each(core.map((f) => [relative(SRC, f), f]))('%s does no console I/O and never exits', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/\bconsole\./);
    expect(text).not.toMatch(/process\.exit\b/);
    expect(text).not.toMatch(/process\.(stdout|stderr)\.write/);
  });

  it('would catch a planted upward import and a planted cycle', () => {
    const low = join(SRC, 'state', 'planted.ts');
    const high = join(SRC, 'engine', 'planted.ts');
    const planted = new Map([
      [low, [high]],
      [high, [low]],
    ]);
    expect(upwardImports(planted)).toEqual(['state/planted.ts → engine/planted.ts (state 1 → engine 4)']);
    expect(cycles(planted).map(rel)).toEqual([['state/planted.ts', 'engine/planted.ts', 'state/planted.ts']]);
    expect(cycles(folderGraph(planted))).toEqual([['state', 'engine', 'state']]);
    const decide = join(ENGINE, 'decide', 'planted.ts');
    const run = join(ENGINE, 'run', 'planted.ts');
    const review = join(ENGINE, 'steps', 'planted.ts');
    expect(supervisorCallers(new Map([[review, [SUPERVISOR]]]))).toEqual([relative(SRC, review)]);
    expect(upwardEngineImports(new Map([[decide, [run]]]))).toEqual([
      'engine/decide/planted.ts → engine/run/planted.ts (decide → run)',
    ]);
  });
});
