import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLI_ALLOWED_INTERNALS,
  cliImportProblems,
  folderEntries,
  publicNames,
} from '../helpers/cli-imports.ts';
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
  backends: 2,
  sandbox: 2, // the sandbox policy and its wrappers (bubblewrap, sandbox-exec)
  git: 2,
  forge: 2, // pull requests on GitHub (REST on fetch)
  skills: 2, // the skill files of `skills.dirs`: discovered, listed in the prompt, loaded by `ralph tools skill`
  workflows: 2, // parsers of the workflow files (checklist, TDD state and reports)
  process: 1,
  http: 1, // the one HTTP core under GitHub, Telegram and webhooks
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
 * commands are not agents). The package entry does not export it (an internal).
 */
const SUPERVISOR = join(SRC, 'process', 'supervisor.ts');
const SUPERVISOR_USERS = ['agent', 'process'];
const SUPERVISOR_EXCEPTIONS = ['engine/gates/checks/run-gate.ts'];

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
function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] as string);
  return specs.map((s) => resolve(dirname(file), s));
}

const all = files(SRC);
const sources = new Map(all.map((f) => [f, readFileSync(f, 'utf8')]));
const graph = new Map(all.map((f) => [f, importsOf(f, sources.get(f) as string)]));

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

/** The folder graph: an edge from one folder (top-level by default) to another when any file imports across. */
function folderGraph(graph: Map<string, string[]>, folder = area): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const edges = folders.get(folder(file)) ?? new Set<string>();
    for (const t of targets) if (folder(t) !== folder(file)) edges.add(folder(t));
    folders.set(folder(file), edges);
  }
  return new Map([...folders].map(([k, v]) => [k, [...v]]));
}

/**
 * The engine is split by sub-domain (DESIGN.md §3), each with one home. The run drives iterations;
 * an iteration settles its work (gates, then the steering's review points, then the commit); the
 * gates ask humans (a touched protected file) and read the workflow steps (checklist progress); the
 * review points read the commit's view of git; all of them share the run context, and the decisions
 * (pure) sit at the bottom. `readiness` ("can Ralph run here?": health, preflight, backend info) is
 * judged by the run before iterations and is not a gate. `gates/checks` holds the gate primitives
 * that need no run (run a gate command, affected tests, coverage, path rules, protected files):
 * the commit and workflow steps name their GateResult, so they rank below those.
 */
const ENGINE_DOMAINS: Record<string, number> = {
  run: 6,
  iteration: 5,
  gates: 4,
  metric: 4, // the metric loop: measures, keeps or rolls back through gates/rollback
  repos: 4, // repos: each repository's gates, commit, push or rollback after an iteration
  steering: 3,
  readiness: 3,
  commit: 2,
  hooks: 2, // lifecycle hooks: the run, an iteration and human.interact fire them
  'workflow-steps': 2,
  context: 1,
  'gates/checks': 1,
  decide: 0,
};
const ENGINE = join(SRC, 'engine');
/** A file's engine sub-domain: a nested one (`gates/checks`) when ENGINE_DOMAINS names it, else its folder. */
const engineDomain = (file: string) => {
  const [first, second] = relative(ENGINE, file).split(sep) as [string, string | undefined];
  return second !== undefined && `${first}/${second}` in ENGINE_DOMAINS ? `${first}/${second}` : first;
};

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

/** The engine's part of a graph: its files and their imports of other engine files. */
function engineGraph(graph: Map<string, string[]>): Map<string, string[]> {
  return new Map(
    [...graph]
      .filter(([f]) => area(f) === 'engine')
      .map(([f, ts]) => [f, ts.filter((t) => area(t) === 'engine')]),
  );
}

/**
 * Folders of pure decisions (DESIGN.md §3): data in, data out. Reading a file or starting a process
 * there would make a decision depend on the machine; effects come in as dependencies instead.
 */
const PURE_FOLDERS = ['engine/decide', 'routing'];
/** Modules that reach the file system or start processes, with or without `node:`, `fs/promises` too. */
const EFFECT_MODULE = /^(?:node:)?(?:fs|child_process)(?:\/|$)/;

/** Every module a source names: imports, re-exports, side-effect imports, `import()` and `require()`. */
function modulesOf(text: string): string[] {
  const named = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"]+)\1/g;
  return [...text.matchAll(named)].map((m) => m[2] as string);
}

/** Imports of `fs` or `child_process` by a file of a pure folder, as `file → module`. */
function effectImports(sources: Map<string, string>): string[] {
  return [...sources].flatMap(([file, text]) => {
    const path = relative(SRC, file).split(sep).join('/');
    if (!PURE_FOLDERS.some((dir) => path.startsWith(`${dir}/`))) return [];
    return modulesOf(text)
      .filter((m) => EFFECT_MODULE.test(m))
      .map((m) => `${path} → ${m}`);
  });
}

/** DESIGN.md §3: a folder past ~15 files is split by sub-domain. */
const MAX_FOLDER_FILES = 15;
/** Folders of src/ still over the limit. The check fails once one is back under it: drop it here then. */
const OVERSIZED: readonly string[] = [];

/** How many .ts files each folder of src/ holds directly (`.` is src/ itself). */
function folderSizes(paths: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const f of paths) {
    const dir = relative(SRC, dirname(f)).split(sep).join('/') || '.';
    sizes.set(dir, (sizes.get(dir) ?? 0) + 1);
  }
  return sizes;
}

/** Folders over the limit that are not in `oversized`, and `oversized` entries no longer over it. */
function folderSizeProblems(paths: readonly string[], oversized: readonly string[] = OVERSIZED): string[] {
  const sizes = folderSizes(paths);
  const over = [...sizes]
    .filter(([dir, n]) => n > MAX_FOLDER_FILES && !oversized.includes(dir))
    .map(([dir, n]) => `src/${dir} holds ${n} files: split it by sub-domain`);
  const stale = oversized
    .filter((dir) => (sizes.get(dir) ?? 0) <= MAX_FOLDER_FILES)
    .map((dir) => `src/${dir} holds ${sizes.get(dir) ?? 0} files: remove it from OVERSIZED`);
  return [...over, ...stale];
}

const rel = (c: string[]) => c.map((f) => relative(SRC, f) || f);

/** Every folder of src/ below it, as `engine/run`. */
function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      const path = join(dir, e.name);
      return [relative(SRC, path).split(sep).join('/'), ...folders(path)];
    });
}

/** CONTRIBUTING.md's "The code": the map of src/ a new engineer reads first. */
function codeSection(): string {
  const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const start = text.indexOf('## The code');
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/**
 * Folders the section does not name (as `src/a/b` or `` `b/` ``), `src/…` paths it names that do not
 * exist, and `` `b/` `` names that are no folder of src/ (a folder renamed under the map).
 */
function codeMapProblems(
  section: string,
  dirs: readonly string[],
  exists: (path: string) => boolean,
): string[] {
  const flat = section.replace(/\s+/g, ' ');
  const unnamed = dirs
    .filter((d) => {
      const base = d.split('/').at(-1) as string;
      return !flat.includes(`src/${d}`) && !new RegExp(`\`(?:[\\w.-]+/)*${base}/`).test(flat);
    })
    .map((d) => `src/${d}/ is not named`);
  const missing = [...flat.matchAll(/`(src\/[\w./-]*[\w-])/g)]
    .map((m) => m[1] as string)
    .filter((path) => !exists(path))
    .map((path) => `${path} does not exist`);
  const names = new Set(['src', ...dirs.map((d) => d.split('/').at(-1))]);
  const stale = [...flat.matchAll(/`([\w-]+)\/`/g)]
    .map((m) => m[1] as string)
    .filter((name) => !names.has(name))
    .map((name) => `\`${name}/\` is no folder of src/`);
  return [...unnamed, ...new Set(missing), ...new Set(stale)];
}

/** The file-system modules, with or without `node:`, the promises API too. */
const FS_MODULE = /^(?:node:)?fs(?:\/promises)?$/;

/**
 * Whether a source watches files with fs itself: `watch`/`watchFile` imported by name (aliased or
 * not), or called through a namespace or default import of `fs` (`fs.watch`, `fs.promises.watch`).
 */
function watchesFs(text: string): boolean {
  const names: string[] = [];
  for (const m of text.matchAll(/\bimport\s+([^'";]+?)\s+from\s*(['"])([^'"]+)\2/g)) {
    if (!FS_MODULE.test(m[3] as string)) continue;
    const clause = m[1] as string;
    if (/\{[^}]*\bwatch(?:File)?\b[^}]*\}/.test(clause)) return true;
    const promises = /\{[^}]*\bpromises(?:\s+as\s+([\w$]+))?[^}]*\}/.exec(clause);
    if (promises) names.push(promises[1] ?? 'promises');
    const whole = /^([\w$]+)|\*\s*as\s+([\w$]+)/.exec(clause.trim());
    if (whole) names.push((whole[1] ?? whole[2]) as string);
  }
  for (const m of text.matchAll(
    /\b(?:const|let|var)\s+([\w$]+)\s*=\s*(?:await\s+import|require)\(\s*(['"])([^'"]+)\2/g,
  ))
    if (FS_MODULE.test(m[3] as string)) names.push(m[1] as string);
  return names.some((n) =>
    new RegExp(`\\b${n.replace('$', '\\$')}(?:\\.promises)?\\.watch(?:File)?\\s*\\(`).test(text),
  );
}

/** Where the block that starts at or after `from` (its first `{`) ends: just past its matching `}`. */
function blockEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = text.indexOf('{', from); i >= 0 && i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

/**
 * Polls written by hand: a function that re-arms a timer with itself
 * (`const check = () => { …; setTimeout(check, 200); }`), the names of those functions.
 */
function timerPolls(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\bsetTimeout\(\s*([A-Za-z_$][\w$]*)\s*[,)]/g)) {
    const name = m[1] as string;
    const def = new RegExp(`\\bfunction\\s+${name}\\s*\\(|\\b(?:const|let|var)\\s+${name}\\s*=`).exec(text);
    if (def && def.index < (m.index as number) && (m.index as number) < blockEnd(text, def.index))
      found.add(name);
  }
  return [...found];
}

/** The waits and watches a file writes by hand instead of using the shared ones (DESIGN.md §3). */
function handMadeWaits(name: string, text: string): string[] {
  const found: string[] = [];
  if (name !== 'git/tree-watch.ts' && watchesFs(text))
    found.push(`${name}: fs.watch (use watchTree from git/tree-watch.ts)`);
  if (/new Promise[^;]*setTimeout\(/.test(text))
    found.push(`${name}: a hand-written sleep (use setTimeout from node:timers/promises)`);
  for (const poll of timerPolls(text))
    found.push(
      `${name}: ${poll} re-arms a timer with itself (use poll or followJsonl from state/io/jsonl.ts)`,
    );
  return found;
}

/** The entries of executables, the only files that may call `process.exit`: Ralph's CLI and the scripted fake agent (a program of its own). */
const EXIT_ALLOWED = ['cli/bin.ts', 'fake-agent/main.ts'];

/** Files of src/ (as relative paths) that call `process.exit` although they are not an executable's entry. */
function exitCallers(sources: Map<string, string>): string[] {
  return [...sources]
    .map(([file, text]) => [relative(SRC, file).split(sep).join('/'), text] as const)
    .filter(([name, text]) => !EXIT_ALLOWED.includes(name) && /\bprocess\.exit\b/.test(text))
    .map(([name]) => name);
}

/** The one runner that builds git's arguments and environment (hooks off, no replace objects …). */
const GIT_RUNNER = 'git/run-git.ts';
/** `git` started directly: as the program of a child_process call (`exec` with a command line too), or `command: 'git'`. */
const GIT_SPAWN =
  /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync)\s*\(\s*(['"`])git(?:\s[^'"`]*)?\1|\bcommand\s*:\s*(['"`])git\2/;

/** Files of src/ (relative paths) that start git themselves instead of through the one runner. */
function gitSpawners(sources: Map<string, string>): string[] {
  return [...sources]
    .map(([file, text]) => [relative(SRC, file).split(sep).join('/'), text] as const)
    .filter(([name, text]) => name !== GIT_RUNNER && GIT_SPAWN.test(text))
    .map(([name]) => name);
}

/**
 * One door for config (issue 33): the functions that put the layers together, each with the file
 * that defines it and the only files that may use it. Every command reads its config through
 * `resolveRunConfig` (engine/run/resolve-run.ts); `resolveRunCached` keys its cache on the same
 * inputs and calls the door on a miss. The package root re-exports `loadConfig` for embedders (not a command's config).
 */
const CONFIG_ASSEMBLY: readonly { name: string; homes: readonly string[] }[] = [
  { name: 'loadConfig', homes: ['config/load-config.ts', 'engine/run/resolve-run.ts', 'index.ts'] },
  { name: 'parseConfigText', homes: ['config/load-config.ts'] },
  { name: 'mergeLayer', homes: ['config/config-layers.ts', 'config/load-config.ts'] },
  { name: 'applyOverrides', homes: ['config/overrides.ts', 'config/load-config.ts'] },
  { name: 'configLayers', homes: ['config/run-config.ts', 'engine/run/run-inputs.ts'] },
  { name: 'agentEnvOverrides', homes: ['config/run-config.ts', 'engine/run/run-inputs.ts'] },
  {
    name: 'runConfigInputs',
    homes: ['engine/run/run-inputs.ts', 'engine/run/resolve-run.ts', 'engine/run/resolve-run-cached.ts'],
  },
  { name: 'loadRunConfig', homes: ['engine/run/resolve-run.ts'] },
];
/** Where `RALPH_AGENT` may be read: its override, and the config cache's key. */
const RALPH_AGENT_READERS = ['config/run-config.ts', 'engine/run/resolve-run-cached.ts'];
const RALPH_AGENT_READ =
  /\benv(?:\.RALPH_AGENT\b|\[\s*['"`]RALPH_AGENT['"`]\s*\])|\{[^}]*\bRALPH_AGENT\b[^}]*\}\s*=\s*[\w.]*env\b/;

/** Files of src/ that assemble config themselves instead of through the door, with what they use. */
function configAssemblers(sources: Map<string, string>): string[] {
  return [...sources].flatMap(([file, text]) => {
    const name = relative(SRC, file).split(sep).join('/');
    // Comments may name the functions; only code counts.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
    const uses = CONFIG_ASSEMBLY.filter(
      (f) => !f.homes.includes(name) && new RegExp(`\\b${f.name}\\b`).test(code),
    );
    const env = !RALPH_AGENT_READERS.includes(name) && RALPH_AGENT_READ.test(code) ? ['RALPH_AGENT'] : [];
    return [...uses.map((f) => f.name), ...env].map((what) => `${name}: ${what}`);
  });
}

/**
 * DESIGN.md §3: processes start in src/process/ — the supervisor, and the one-shot runner on it
 * (process/command-runner.ts: git, notify, `gh auth token`, `--version` probes). The rest, each with why.
 */
const CHILD_PROCESS_ALLOWED: Record<string, string> = {
  'process/supervisor.ts': 'the one spawn of a process group: agents, gates and process/command-runner.ts',
  'process/ps-table.ts': 'the process table is read synchronously (as /proc is), so its ps fallback too',
  'parallel/worker-process.ts': 'a worker outlives the coordinator that started it (adopted by the next)',
  'cli/run/plan-command.ts': '`ralph plan` hands the terminal to the agent (stdio inherited, foreground)',
  'cli/dashboard/dashboard-command.ts':
    'the browser xdg-open starts outlives the call (not killed with a group)',
  'fake-agent/main.ts': 'a program of its own (the scripted agent), not Ralph',
};
const CHILD_PROCESS_MODULE = /^(?:node:)?child_process$/;

/** Files of src/ (relative paths) that name `child_process` although they are not on the allow-list. */
function childProcessImporters(sources: Map<string, string>): string[] {
  return [...sources]
    .map(([file, text]) => [relative(SRC, file).split(sep).join('/'), text] as const)
    .filter(
      ([name, text]) =>
        !(name in CHILD_PROCESS_ALLOWED) && modulesOf(text).some((m) => CHILD_PROCESS_MODULE.test(m)),
    )
    .map(([name]) => name);
}

/**
 * The lock core's one acquire loop (state/io/lock.ts `acquireLockFile`): creating a lock file and
 * removing a stale one are its steps, so no other file takes a lock with a loop of its own.
 */
const LOCK_STEPS = /\b(?:createLockFile|removeStaleLock)\b/;
const LOCK_CORE = ['state/io/lock.ts', 'state/io/lock-holder.ts', 'state/io/takeover-guard.ts'];

/** Files of src/ (relative paths) outside the lock core that use its low-level steps. */
function lockStepUsers(sources: Map<string, string>): string[] {
  return [...sources]
    .map(([file, text]) => [relative(SRC, file).split(sep).join('/'), text] as const)
    .filter(([name, text]) => !LOCK_CORE.includes(name) && LOCK_STEPS.test(text))
    .map(([name]) => name);
}

/**
 * Settlement decides an iteration's events once (DESIGN.md §3, plan then apply): decideEvents is
 * called only by the iteration's `decide`, and `decide` only by applySettlement.
 */
const DECISION_CALLERS: Record<string, RegExp> = {
  'engine/iteration/iteration-decision.ts': /\bdecideEvents\(/,
  'engine/iteration/settle/apply-settlement.ts': /(?<![\w.])decide\(/,
};

/** Files of src/ that call decideEvents or decide other than their one caller (declarations aside). */
function decisionCallers(sources: Map<string, string>): string[] {
  const call = /\bdecideEvents\(|(?<![\w.])decide\(/g;
  const declared = /\bfunction\s+(?:decideEvents|decide)\(/g;
  return [...sources]
    .map(([file, text]) => [relative(SRC, file).split(sep).join('/'), text] as const)
    .filter(([name, text]) => {
      const calls = (text.match(call) ?? []).length - (text.match(declared) ?? []).length;
      const allowed = DECISION_CALLERS[name];
      const own = allowed ? (text.match(new RegExp(allowed.source, 'g')) ?? []).length : 0;
      return calls - (allowed ? Math.min(own, 1) : 0) > 0;
    })
    .map(([name]) => name);
}

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
      'place the file in a sub-domain of ENGINE_DOMAINS',
    ).toEqual([]);
    expect(upwardEngineImports(graph)).toEqual([]);
  });

  it('has no cycles between the engine sub-domains', () => {
    expect(cycles(folderGraph(engineGraph(graph), engineDomain))).toEqual([]);
  });

  it('keeps engine/decide/ and routing/ pure: no fs, no child_process', () => {
    expect(effectImports(sources), 'pass the effect in as a dependency, or move the code out').toEqual([]);
  });

  it(`has no folder of src/ over ${MAX_FOLDER_FILES} .ts files`, () => {
    expect(folderSizeProblems(all)).toEqual([]);
  });

  it('lets only the agent-turn runner start agents through the supervisor', () => {
    expect(supervisorCallers(graph), 'run the agent with runAgentTurn (src/agent/agent-turn.ts)').toEqual([]);
  });

  it('watches files only through the careful watcher and sleeps with node:timers/promises (DESIGN.md §3)', () => {
    const offenders = [...sources].flatMap(([file, text]) =>
      handMadeWaits(relative(SRC, file).split(sep).join('/'), text),
    );
    expect(offenders).toEqual([]);
  });

  it('exits the process only in src/cli/bin.ts (and the fake agent, a program of its own)', () => {
    expect(exitCallers(sources), 'return an exit code to cli/bin.ts, or throw a RalphError').toEqual([]);
  });

  it('starts git only through the one runner (src/git/run-git.ts), so no call skips its protections', () => {
    expect(gitSpawners(sources), 'call runGit/runGitRaw from src/git/run-git.ts').toEqual([]);
  });

  it('would catch git planted outside the runner', () => {
    const planted = new Map([
      [join(SRC, 'cli', 'a.ts'), "import { spawn } from 'node:child_process';\nspawn('git', ['status']);"],
      [join(SRC, 'parallel', 'b.ts'), 'execFileSync("git", ["-C", dir, "commit"]);'],
      [join(SRC, 'git', 'c.ts'), 'await execSync(`git rev-parse HEAD`);'],
      [join(SRC, 'fleet', 'd.ts'), "runCommand({ command: 'git', args: ['push'] });"],
      // Not offenders: the runner itself, another program whose name starts with git, the runner's callers.
      [join(SRC, 'git', 'run-git.ts'), "spawn('git', args, { env: gitEnv() });"],
      [join(SRC, 'gates', 'e.ts'), "spawn('gitleaks', ['detect']);"],
      [join(SRC, 'engine', 'f.ts'), "await runGit(root, ['status']);"],
    ]);
    expect(gitSpawners(planted)).toEqual(['cli/a.ts', 'parallel/b.ts', 'git/c.ts', 'fleet/d.ts']);
  });

  it('assembles config only in the one door (resolveRunConfig), so every command reads the same config', () => {
    expect(
      configAssemblers(sources),
      'read the config through resolveRunConfig (engine/run/resolve-run.ts)',
    ).toEqual([]);
  });

  it('would catch config assembled outside the door', () => {
    const planted = new Map([
      [
        join(SRC, 'cli', 'config', 'a.ts'),
        "import { loadConfig } from '../../config/load-config.ts';\nloadConfig({ layers: configLayers(cwd, env, {}), cwd });",
      ],
      [join(SRC, 'cli', 'b.ts'), "const { loadConfig: load } = await import('../config/load-config.ts');"],
      [join(SRC, 'fleet', 'c.ts'), 'const agent = io.env.RALPH_AGENT ?? config.cli.backend;'],
      [join(SRC, 'engine', 'd.ts'), "const { RALPH_AGENT: agent } = process.env;\nenv['RALPH_AGENT'];"],
      [join(SRC, 'engine', 'run', 'e.ts'), 'return loadRunConfig(runConfigInputs(options), pick);'],
      [join(SRC, 'config', 'f.ts'), 'const merged = mergeLayer(base, applyOverrides(raw, []));'],
      // Not offenders: the door and its parts, a re-export, comments and messages naming them.
      [join(SRC, 'engine', 'run', 'resolve-run.ts'), 'loadConfig({ layers, cwd, overrides });'],
      [
        join(SRC, 'engine', 'run', 'run-inputs.ts'),
        '[...agentEnvOverrides(env), ...configLayers(cwd, env, f)];',
      ],
      [join(SRC, 'index.ts'), "export { type LoadedConfig, loadConfig } from './config/load-config.ts';"],
      [
        join(SRC, 'cli', 'g.ts'),
        "// loadConfig does not apply RALPH_AGENT\nthrow new Error('set RALPH_AGENT');",
      ],
    ]);
    expect(configAssemblers(planted)).toEqual([
      'cli/config/a.ts: loadConfig',
      'cli/config/a.ts: configLayers',
      'cli/b.ts: loadConfig',
      'fleet/c.ts: RALPH_AGENT',
      'engine/d.ts: RALPH_AGENT',
      'engine/run/e.ts: runConfigInputs',
      'engine/run/e.ts: loadRunConfig',
      'config/f.ts: mergeLayer',
      'config/f.ts: applyOverrides',
    ]);
  });

  it('starts processes only in the supervisor and the one-shot runner (src/process/), and the allowed few', () => {
    expect(
      childProcessImporters(sources),
      'run it with runCommand (src/process/command-runner.ts), or add the file to CHILD_PROCESS_ALLOWED saying why',
    ).toEqual([]);
    for (const name of Object.keys(CHILD_PROCESS_ALLOWED))
      expect(existsSync(join(SRC, name)), name).toBe(true);
  });

  it('would catch child_process planted outside the allow-list', () => {
    const planted = new Map([
      [join(SRC, 'human', 'a.ts'), "import { spawn } from 'node:child_process';"],
      [join(SRC, 'forge', 'b.ts'), "import { execFile } from 'child_process';"],
      [join(SRC, 'git', 'c.ts'), "const cp = await import('node:child_process');"],
      [join(SRC, 'engine', 'run', 'd.ts'), "export { spawnSync } from 'node:child_process';"],
      // Not offenders: the supervisor, the runner's callers, a module that only mentions the name.
      [join(SRC, 'process', 'supervisor.ts'), "import { spawn } from 'node:child_process';"],
      [join(SRC, 'human', 'e.ts'), "import { runCommand } from '../process/run-command.ts';"],
      [join(SRC, 'state', 'f.ts'), "import { x } from './child_process-notes.ts';"],
    ]);
    expect(childProcessImporters(planted)).toEqual([
      'human/a.ts',
      'forge/b.ts',
      'git/c.ts',
      'engine/run/d.ts',
    ]);
  });

  it('takes locks only through the lock core’s one acquire loop (acquireLockFile)', () => {
    expect(lockStepUsers(sources), 'take the lock with acquireLockFile from src/state/io/lock.ts').toEqual(
      [],
    );
  });

  it('would catch a lock loop planted outside the lock core', () => {
    const planted = new Map([
      [join(SRC, 'human', 'telegram', 'a.ts'), 'if (createLockFile(lock, me, "poller")) return true;'],
      [join(SRC, 'state', 'b.ts'), "import { removeStaleLock } from './io/lock.ts';"],
      // Not offenders: the core itself, and the acquire loop's callers.
      [join(SRC, 'state', 'io', 'lock.ts'), 'if (createLockFile(path, o.content, o.what)) return held;'],
      [join(SRC, 'parallel', 'c.ts'), 'acquireLockFile(path, { content, what, stale }).held;'],
    ]);
    expect(lockStepUsers(planted)).toEqual(['human/telegram/a.ts', 'state/b.ts']);
  });

  it('makes the event decision in one place: decide() once, in applySettlement', () => {
    expect(decisionCallers(sources), "fold the new blocker into applySettlement's one decision").toEqual([]);
  });

  it('would catch a second decision planted beside the one', () => {
    const planted = new Map([
      [
        join(SRC, 'engine', 'iteration', 'settle', 'apply-settlement.ts'),
        'decide(input, late);\ndecide(input, more);',
      ],
      [join(SRC, 'engine', 'run', 'a.ts'), 'const d = decideEvents(input);'],
      [
        join(SRC, 'engine', 'iteration', 'iteration-decision.ts'),
        'export function decide(i) { return decideEvents(i); }',
      ],
      [join(SRC, 'engine', 'gates', 'b.ts'), 'if (x) decide(input, []);'],
      // Not offenders: a method of that name, a declaration alone.
      [join(SRC, 'engine', 'gates', 'c.ts'), 'policy.decide(x); export function decide() {}'],
    ]);
    expect(decisionCallers(planted)).toEqual([
      'engine/iteration/settle/apply-settlement.ts',
      'engine/run/a.ts',
      'engine/gates/b.ts',
    ]);
  });

  it('resolves every relative import to a file', () => {
    const missing = [...graph].flatMap(([f, ts]) =>
      ts.filter((t) => !graph.has(t)).map((t) => `${relative(SRC, f)} → ${relative(SRC, t)}`),
    );
    expect(missing).toEqual([]);
  });

  const core = all.filter((f) => (LAYERS[area(f)] ?? 99) <= CORE_RANK);
  it.each(core.map((f) => [relative(SRC, f), f]))('%s does no console I/O and never exits', (_name, file) => {
    const text = sources.get(file) as string;
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
    const review = join(ENGINE, 'gates', 'planted.ts');
    expect(supervisorCallers(new Map([[review, [SUPERVISOR]]]))).toEqual([relative(SRC, review)]);
    expect(upwardEngineImports(new Map([[decide, [run]]]))).toEqual([
      'engine/decide/planted.ts → engine/run/planted.ts (decide → run)',
    ]);
    const commit = join(ENGINE, 'commit', 'planted.ts');
    const steps = join(ENGINE, 'workflow-steps', 'planted.ts');
    const sameRank = new Map([
      [commit, [steps]],
      [steps, [commit]],
    ]);
    expect(upwardEngineImports(sameRank)).toEqual([]);
    expect(cycles(folderGraph(engineGraph(sameRank), engineDomain))).toEqual([
      ['commit', 'workflow-steps', 'commit'],
    ]);
    // A nested sub-domain ranks on its own: the gate primitives may not import the gates above them.
    const check = join(ENGINE, 'gates', 'checks', 'planted.ts');
    expect(upwardEngineImports(new Map([[check, [review]]]))).toEqual([
      'engine/gates/checks/planted.ts → engine/gates/planted.ts (gates/checks → gates)',
    ]);
    expect(upwardEngineImports(new Map([[review, [check]]]))).toEqual([]);
  });

  it('would catch planted fs and child_process imports in a pure folder', () => {
    const planted = new Map([
      [join(ENGINE, 'decide', 'a.ts'), "import { readFile } from 'node:fs/promises';"],
      [
        join(ENGINE, 'decide', 'b.ts'),
        'import * as fs from \'fs\';\nexport { spawn } from "node:child_process";',
      ],
      [join(SRC, 'routing', 'c.ts'), "const cp = await import('child_process');\nrequire('node:fs');"],
      [join(SRC, 'routing', 'd.ts'), "import { join } from 'node:path';\nimport { fsync } from './fs.ts';"],
      [join(ENGINE, 'run', 'e.ts'), "import { readFileSync } from 'node:fs';"],
    ]);
    expect(effectImports(planted)).toEqual([
      'engine/decide/a.ts → node:fs/promises',
      'engine/decide/b.ts → fs',
      'engine/decide/b.ts → node:child_process',
      'routing/c.ts → child_process',
      'routing/c.ts → node:fs',
    ]);
  });

  it('CONTRIBUTING.md\'s "The code" names every folder of src/, and every src/ path and folder it names exists', () => {
    const exists = (path: string) => existsSync(join(ROOT, path));
    expect(codeMapProblems(codeSection(), folders(SRC), exists)).toEqual([]);
    expect(
      codeMapProblems(
        '## The code\n`src/engine`, `run/`, `verify/`, `.ralph/` and `src/gone.ts`',
        ['engine', 'engine/run', 'cli/rescue'],
        exists,
      ),
    ).toEqual([
      'src/cli/rescue/ is not named',
      'src/gone.ts does not exist',
      '`verify/` is no folder of src/',
    ]);
  });

  it('would catch planted watches, hand-written sleeps and polls, and process.exit', () => {
    const planted: [string, string][] = [
      ['a.ts', "import { watch } from 'node:fs';"],
      ['b.ts', "import * as fs from 'node:fs';\nfs.watch(dir, () => {});"],
      ['c.ts', "import { watch as w } from 'node:fs/promises';"],
      ['d.ts', "import fsp from 'fs/promises';\nfor await (const e of fsp.watch(dir)) {}"],
      ['e.ts', "import { promises } from 'node:fs';\npromises.watch(dir);"],
      ['f.ts', "import { watchFile } from 'fs';"],
      ['g.ts', 'await new Promise((r) => setTimeout(r, 10));'],
      ['h.ts', 'const check = () => {\n  if (done()) return;\n  setTimeout(check, 200);\n};\ncheck();'],
      ['i.ts', 'function tick() {\n  if (again) {\n    timer = setTimeout(tick, 250);\n  }\n}'],
      // Not offenders: another watch, a debounce that does not re-arm itself, the careful watcher.
      [
        'j.ts',
        "import { readFileSync } from 'node:fs';\nc.watch(a);\nconst flush = () => {};\nsetTimeout(flush, 100);",
      ],
      ['git/tree-watch.ts', "import { watch } from 'node:fs';"],
    ];
    expect(planted.flatMap(([name, text]) => handMadeWaits(name, text))).toEqual([
      'a.ts: fs.watch (use watchTree from git/tree-watch.ts)',
      'b.ts: fs.watch (use watchTree from git/tree-watch.ts)',
      'c.ts: fs.watch (use watchTree from git/tree-watch.ts)',
      'd.ts: fs.watch (use watchTree from git/tree-watch.ts)',
      'e.ts: fs.watch (use watchTree from git/tree-watch.ts)',
      'f.ts: fs.watch (use watchTree from git/tree-watch.ts)',
      'g.ts: a hand-written sleep (use setTimeout from node:timers/promises)',
      'h.ts: check re-arms a timer with itself (use poll or followJsonl from state/io/jsonl.ts)',
      'i.ts: tick re-arms a timer with itself (use poll or followJsonl from state/io/jsonl.ts)',
    ]);
    const exits = new Map([
      [join(SRC, 'cli', 'bin.ts'), 'process.exit(code);'],
      [join(SRC, 'fake-agent', 'main.ts'), 'process.exit(97);'],
      [join(SRC, 'cli', 'run', 'planted.ts'), 'process.exit(130);'],
      [join(SRC, 'tui', 'planted.ts'), 'process.exitCode = 1;'],
    ]);
    expect(exitCallers(exits)).toEqual(['cli/run/planted.ts']);
  });

  it('would catch a planted folder over the limit and a stale OVERSIZED entry', () => {
    const many = (dir: string, n: number) => Array.from({ length: n }, (_, i) => join(SRC, dir, `f${i}.ts`));
    const planted = [
      ...many('engine/gates', MAX_FOLDER_FILES + 1),
      ...many('engine/steering', MAX_FOLDER_FILES),
      ...many('cli', MAX_FOLDER_FILES + 1),
      ...many('state', MAX_FOLDER_FILES),
    ];
    // A planted list of its own: an entry still over the limit (cli) and a stale one (state).
    expect(folderSizeProblems(planted, ['cli', 'state'])).toEqual([
      `src/engine/gates holds ${MAX_FOLDER_FILES + 1} files: split it by sub-domain`,
      `src/state holds ${MAX_FOLDER_FILES} files: remove it from OVERSIZED`,
    ]);
  });
  // From the module that declares a public name, not through index.ts: the `ralph` bundle splits
  // by module, and `ralph --version` must not load the engine that index.ts re-exports.
  it('lets src/cli import only the public API, its own files and the named allow-list of internals', () => {
    const bySrc = new Map([...sources].map(([f, t]) => [relative(SRC, f).split(sep).join('/'), t]));
    const exported = publicNames(bySrc.get('index.ts') as string);
    expect(cliImportProblems(bySrc, exported, CLI_ALLOWED_INTERNALS)).toEqual([]);
  });

  it('names each allowed internal by file, never a whole folder', () => {
    expect(folderEntries(CLI_ALLOWED_INTERNALS)).toEqual([]);
    // Planted: a folder entry is caught, a file entry is not.
    const planted = [
      ['state/', 'planted'],
      ['state/paths.ts', 'planted'],
    ] as const;
    expect(folderEntries(planted)).toEqual(['folder: state/ (name its files)']);
  });

  // The TUI is the other presentation adapter (PRESENTATION_ADAPTER): a tui/ import passes, a dashboard/ one does not.
  it('would catch a planted internal import in src/cli and a stale allow-list entry', () => {
    const planted = new Map([
      [
        'cli/run/planted.ts',
        "import { runLoop } from '../../engine/run/loop.ts';\nimport { killGroupNow } from '../../process/kill-group.ts';",
      ],
      [
        'cli/inspect/planted.ts',
        "const { runIteration } = await import('../../engine/iteration/iteration.ts');\nimport '../../tui/planted.ts';\nimport '../../dashboard/planted.ts';",
      ],
      [
        'cli/planted.ts',
        "import { UsageError } from '../errors.ts';\nimport type { Reporter } from './io.ts';",
      ],
    ]);
    const exported = new Map([
      ['engine/run/loop.ts', new Set(['runLoop'])],
      ['errors.ts', new Set(['UsageError'])],
    ]);
    expect(cliImportProblems(planted, exported, [['observe/', 'planted']])).toEqual([
      'cli/run/planted.ts → process/kill-group.ts (killGroupNow)',
      'cli/inspect/planted.ts → engine/iteration/iteration.ts (runIteration)',
      'cli/inspect/planted.ts → dashboard/planted.ts (*)',
      'stale: observe/',
    ]);
  });
});
