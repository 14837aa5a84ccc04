import { dirname, posix } from 'node:path';

// The CLI is a thin adapter over the public API (DESIGN.md §3, issue 33): what src/cli imports from
// outside src/cli, and which of it is neither the public API nor on the allow-list.

/** One import of a file: the module it names (a path under src/, '/'-separated) and the names it takes ('*': all, or unknown). */
export interface ImportOf {
  module: string;
  names: string[];
}

/** The names src/index.ts re-exports, by the module (under src/) that declares them. */
export function publicNames(indexText: string): Map<string, Set<string>> {
  const byModule = new Map<string, Set<string>>();
  for (const m of indexText.matchAll(/^export (?:type )?\{([^}]*)\} from '\.\/([^']+)';/gm)) {
    const names = byModule.get(m[2] as string) ?? new Set<string>();
    for (const spec of (m[1] as string).split(',')) {
      const name = spec.replace(/^\s*type\s+/, '').trim();
      if (name) names.add(name);
    }
    byModule.set(m[2] as string, names);
  }
  return byModule;
}

const nameList = (list: string) =>
  list
    .split(',')
    .map((s) => (s.replace(/^\s*type\s+/, '').split(/\s+as\s+|:/)[0] as string).trim())
    .filter(Boolean);

/**
 * The relative imports of `file` (a path under src/), with the names each takes: static and type
 * imports, `export … from`, `import * as`, `const { … } = await import(…)`, any other import ('*').
 */
export function importsOfFile(file: string, text: string): ImportOf[] {
  const found: ImportOf[] = [];
  const at = (spec: string) => posix.normalize(posix.join(dirname(file), spec));
  const taken = new Set<number>();
  const named =
    /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(\.{1,2}\/[^']+)'|(?:const|let)\s+\{([^}]*)\}\s*=\s*await\s+import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;
  for (const m of text.matchAll(named)) {
    const spec = (m[2] ?? m[4]) as string;
    found.push({ module: at(spec), names: nameList((m[1] ?? m[3]) as string) });
    taken.add((m.index as number) + m[0].lastIndexOf(spec));
  }
  for (const m of text.matchAll(/(?:from\s+|import\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) {
    const spec = m[1] as string;
    if (!taken.has((m.index as number) + m[0].lastIndexOf(spec)))
      found.push({ module: at(spec), names: ['*'] });
  }
  return found;
}

/** An internal module (or a folder, ending in '/') the CLI may import, and why it is not API. */
export type AllowEntry = readonly [module: string, reason: string];

/**
 * Every import from a file of `cli/` into a module outside it that is neither `index.ts`, nor names
 * only what the package root exports from that module, nor on `allow`: `cli/a.ts → engine/x.ts (f, g)`.
 * Also every allow entry no import needs any more (`stale: …`), so the list only shrinks.
 */
export function cliImportProblems(
  sources: ReadonlyMap<string, string>,
  exported: ReadonlyMap<string, ReadonlySet<string>>,
  allow: readonly AllowEntry[],
): string[] {
  const problems: string[] = [];
  const used = new Set<string>();
  const allowedBy = (module: string) =>
    allow.find(([entry]) => (entry.endsWith('/') ? module.startsWith(entry) : module === entry))?.[0];
  for (const [file, text] of sources) {
    if (!file.startsWith('cli/')) continue;
    for (const { module, names } of importsOfFile(file, text)) {
      if (module.startsWith('cli/') || module === 'index.ts') continue;
      const internal = names.filter((n) => !exported.get(module)?.has(n));
      if (internal.length === 0) continue;
      const entry = allowedBy(module);
      if (entry) used.add(entry);
      else problems.push(`${file} → ${module} (${internal.join(', ')})`);
    }
  }
  for (const [entry] of allow) if (!used.has(entry)) problems.push(`stale: ${entry}`);
  return problems;
}

/**
 * What src/cli may import from internals besides the public API, and why each is not API. It only
 * shrinks: an entry no import needs fails the test. Presentation belongs here; what an embedder
 * would need too belongs in src/index.ts instead.
 */
export const CLI_ALLOWED_INTERNALS: readonly AllowEntry[] = [
  ['tui/', 'presentation: the terminal UI `ralph run` draws (ink, loaded lazily)'],
  ['dashboard/', '`ralph dashboard` serves it and `ralph runs` lists what it shows'],
  ['fleet/', '`ralph fleet` drives the job engine behind its one door (optional peers)'],
  ['demo/', '`ralph demo` writes its workspace'],
  ['observe/', 'presentation: the figures, widths, words and redaction of what the commands print'],
  ['routing/hat-graph.ts', 'presentation: the hat graph `ralph hats graph` draws'],
  ['config/', 'the ralph.yml tools (config, init, new, presets, hats) edit and explain the file'],
  ['state/', 'the agent tools (emit, tools task|memory) and the inspect commands read and write .ralph/'],
  ['human/', '`ralph ask` is the agent’s blocking tool; `answer` lists the open questions'],
  ['agent/', '`doctor --probe` runs one agent turn; `ralph plan` builds the agent’s environment'],
  ['backends/', '`doctor` lists the backends; `ralph plan` opens one interactively'],
  ['process/', 'executables found, commands shown quoted, the platform check in bin.ts'],
  ['git/', '`ralph rescue` applies rescue refs; `ralph new` makes the first commit'],
  ['gates/run-gate.ts', '`ralph new --check` runs the template’s check as a gate'],
  ['parallel/', '`ralph parallel-worker` reads its spec; `ralph worktrees` lists and cleans'],
  ['engine/readiness/', '`doctor` and `config validate` render the readiness data'],
  ['engine/run/first-iteration.ts', '`run --dry-run` prints the first iteration’s plan'],
  ['engine/run/resolve-run-cached.ts', '`ralph run` resolves through the validated-config cache'],
  ['engine/run/run-setup.ts', '`ralph fleet submit` names the run before it starts'],
  ['engine/run/start-mode.ts', '`ralph run` asks about an earlier checklist run before the TUI opens'],
  ['engine/verify/git-config-gate.ts', '`rescue apply` refuses a changed git config as the loop does'],
  ['engine/workflows/issue-tasks.ts', '`tools task import --from github`'],
  ['paths-package.ts', 'the package’s version and `bin/ralph`'],
];
