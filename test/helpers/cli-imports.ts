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

/**
 * The other presentation adapter, one layer below the CLI (DESIGN.md §3): the terminal UI is drawn
 * for `ralph run`, so the CLI may import any of its files, as the dashboard's server is not.
 */
export const PRESENTATION_ADAPTER = 'tui/';

/** An internal module the CLI may import, and why it is not API (a folder, ending in '/', fails folderEntries). */
export type AllowEntry = readonly [module: string, reason: string];

/**
 * Every import from a file of `cli/` into a module outside it that is neither `index.ts`, nor in `tui/`, nor names
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
      if (module.startsWith('cli/') || module.startsWith(PRESENTATION_ADAPTER) || module === 'index.ts')
        continue;
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

/** Allow entries that name a folder: each internal the CLI needs is named by file, with its own reason. */
export function folderEntries(allow: readonly AllowEntry[]): string[] {
  return allow.filter(([entry]) => entry.endsWith('/')).map(([entry]) => `folder: ${entry} (name its files)`);
}

/**
 * What src/cli may import from internals besides the public API, and why each is not API. It only
 * shrinks: an entry no import needs fails the test. Presentation belongs here; what an embedder
 * would need too belongs in src/index.ts instead.
 */
export const CLI_ALLOWED_INTERNALS: readonly AllowEntry[] = [
  ['observe/format.ts', 'presentation shared with the TUI and the dashboard: costs, numbers, stop words'],
  [
    'state/io/time-format.ts',
    'presentation shared with the TUI, the dashboard and the reporters: durations and ages in words',
  ],
  [
    'observe/stats/metric-series.ts',
    'presentation shared with the dashboard: a metric run’s baseline, best and goal words',
  ],
  [
    'state/io/atomic-write.ts',
    'the one durable whole-file write (through the fault layer): `ralph init` writes the JSON schema beside ralph.yml',
  ],
  [
    'state/io/file-writes.ts',
    'the fault layer’s in-place write: `ralph init` writes ralph.yml as the preset gives it',
  ],
  [
    'state/cache/code-cache.ts',
    'the `ralph` executable’s own start: V8’s code cache for the CLI bundle, which no embedder loads',
  ],
  [
    'state/loop-state.ts',
    'state.json’s reader, being split into owned parts (issue 33 item 2); readStatus is the public read',
  ],
];
