import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError, type ConfigIssue, RalphError, whyUnreadable } from '../errors.ts';
import { trace, tracing } from '../process/debug-trace.ts';
import { issuesFromZod, locate, locatedIssue, type SourceDoc } from './config-issues.ts';
import { type ConfigLayer, hasPath, mergeLayer, topmostWith } from './config-layers.ts';
import { hatConfigIssues, hatConfigWarnings } from './hat-checks.ts';
import { humanConfigIssues } from './human-checks.ts';
import { adaptOrchestratorLayer, type KeyNote } from './orchestrator/adapt-layer.ts';
import { type HatImport, importedDoc, resolveHatImports } from './orchestrator/hat-imports.ts';
import { hatsSourceLayer, overlayHatsSource } from './orchestrator/hats-source.ts';
import { applyOverrides, type ConfigOverride } from './overrides.ts';
import { configSchema, type RalphConfig } from './schema.ts';

/** A problem found in a schema-valid config: the key's path and what to do. */
export interface ConfigCheckIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** A layer as read: its file, how errors name it, its YAML document and plain value. */
export interface LoadedLayer extends ConfigLayer {
  label: string;
  doc: SourceDoc;
  raw: Record<string, unknown>;
  /** ralph-orchestrator keys of this file that Ralph ignores, located (`config validate --strict` fails on them). */
  warnings: ConfigIssue[];
  /** ralph-orchestrator keys of this file read as Ralph's keys (v1 flat keys, a hat's object backend), located. */
  notes: ConfigIssue[];
  /** The hats of this file that import another file's keys (`hats.<id>.import`). */
  imports: HatImport[];
}

/** Where a config came from, for `ralph config show`/`explain` and error messages. */
export interface LoadedConfig {
  config: RalphConfig;
  /** Path of the project file, or undefined when only defaults and flags were used. */
  file: string | undefined;
  /** Every layer read, lowest first (user, project, preset). */
  layers: LoadedLayer[];
  overrides: readonly ConfigOverride[];
  /** Keys a layer sets that the run does not use (a file's `cli.command` when `RALPH_AGENT` or `-b` picks another backend). */
  dropped?: readonly (readonly string[])[];
  /** Every layer's ignored ralph-orchestrator keys, one warning each, lowest layer first. */
  warnings: readonly ConfigIssue[];
  /** Every layer's ralph-orchestrator keys read as Ralph's keys, one note each. */
  notes: readonly ConfigIssue[];
  /** How errors name the hats source (`-H`), when one was read. */
  hatsSource?: string | undefined;
}

/**
 * Parses YAML text into a plain object, reporting syntax errors as `file:line:col`; `notMapping`
 * says what the file must be when it is not a mapping.
 */
export function parseConfigText(
  text: string,
  label: string,
  notMapping = 'the config must be a YAML mapping of sections (event_loop:, cli:, …)',
): SourceDoc & { raw: Record<string, unknown> } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new ConfigError(
      document.errors.map((e) => {
        const pos = e.linePos?.[0] ?? { line: 0, col: 0 };
        // prettyErrors appends " at line L, column C:" and a code frame; the location is reported separately.
        const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        return { file: label, line: pos.line, col: pos.col, path: '', message };
      }),
    );
  }
  let raw: unknown;
  try {
    // toJS resolves aliases: an unknown anchor, or an alias bomb past the yaml library's limit, throws.
    raw = document.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (cause) {
    throw new ConfigError([
      {
        file: label,
        line: 1,
        col: 1,
        path: '',
        message: `${(cause as Error).message} — fix the YAML anchors (&name) and aliases (*name)`,
      },
    ]);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError([
      {
        file: label,
        line: 1,
        col: 1,
        path: '',
        message: notMapping,
      },
    ]);
  }
  return { label, text, lineCounter, contents: document.contents, raw: raw as Record<string, unknown> };
}

/**
 * Loads and validates the configuration: schema defaults ← user config ← project file ← preset ←
 * overrides (in order; the layers given, or just `file`). Returns the config with every default
 * filled in and where it came from. Throws a {@link ConfigError} listing every problem as
 * `file:line:col` with the closest valid key suggested, `config_unreadable` for a missing file.
 * (`resolveRun` does this and the rest of what `ralph run` resolves.)
 */
export function loadConfig(options: {
  /** The project file (a shorthand for `layers: [{ kind: 'project', file }]`). */
  file?: string | undefined;
  /** Every layer file, lowest first; wins over `file`. */
  layers?: readonly ConfigLayer[] | undefined;
  cwd: string;
  overrides?: readonly ConfigOverride[];
  /**
   * Checks a layer above config owns (e.g. what each backend can honour), located like schema
   * problems; each gets the loaded layers too (to judge the config as a run will use it).
   */
  checks?: readonly ((config: RalphConfig, loaded: LoadedConfig) => ConfigCheckIssue[])[];
}): LoadedConfig {
  const overrides = options.overrides ?? [];
  const specs =
    options.layers ?? (options.file === undefined ? [] : [{ kind: 'project' as const, file: options.file }]);
  const layers = specs.map((layer) => readLayer(layer, options.cwd));
  // A problem is located in the topmost layer that sets the key (else the project file), in the
  // file a hat imported the key from when it did.
  const project = layers.find((l) => l.kind === 'project');
  const docFor = (path: readonly PropertyKey[]) => {
    const layer =
      topmostWith(layers, path) ?? topmostWith(layers, path.slice(0, -1)) ?? project ?? layers.at(-1);
    return importedDoc(layer?.imports, path) ?? layer?.doc;
  };
  const merged = applyOverrides(
    layers.reduce<Record<string, unknown>>(
      (acc, l) => (l.kind === 'hats' ? overlayHatsSource(acc, l.raw) : mergeLayer(acc, l.raw)),
      {},
    ),
    overrides,
  );
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const issues = issuesFromZod(result.error, docFor, overrides).sort(
      (a, b) => a.line - b.line || a.col - b.col,
    );
    throw new ConfigError(issues);
  }
  const loaded: LoadedConfig = {
    config: result.data,
    file: project?.file,
    layers,
    overrides,
    warnings: [
      ...layers.flatMap((l) => l.warnings),
      ...hatConfigWarnings(result.data).map(({ path, message }) =>
        locatedIssue(path, message, docFor, overrides),
      ),
    ],
    notes: [...layers.flatMap((l) => l.notes), ...replacedByHatsSource(layers)],
    hatsSource: layers.find((l) => l.kind === 'hats')?.label,
  };
  const hatIssues = [
    ...hatConfigIssues(result.data),
    ...humanConfigIssues(result.data),
    ...(options.checks ?? []).flatMap((check) => check(result.data, loaded)),
  ];
  if (hatIssues.length > 0) {
    throw new ConfigError(
      hatIssues
        .map(({ path, message }) => locatedIssue(path, message, docFor, overrides))
        .sort((a, b) => a.line - b.line || a.col - b.col),
    );
  }
  return loaded;
}

/** The `hats:`/`events:` of the layers below a hats source (`-H`) that it replaces: a note each. */
function replacedByHatsSource(layers: readonly LoadedLayer[]): ConfigIssue[] {
  const at = layers.findIndex((l) => l.kind === 'hats');
  if (at < 0) return [];
  const source = layers[at]!;
  return layers.slice(0, at).flatMap((layer) =>
    (['hats', 'events'] as const)
      .filter((key) => hasPath(layer.raw, [key]) && hasPath(source.raw, [key]))
      .map((key) =>
        keyIssue(layer.doc, {
          path: [key],
          message: `replaced by the ${key} of the hats source ${source.label} (-H)`,
        }),
      ),
  );
}

/** Reads and parses one layer file; an unreadable file is an error naming it. */
function readLayer(layer: ConfigLayer, cwd: string): LoadedLayer {
  let text: string;
  if (tracing()) trace({ kind: 'config.read', path: layer.file });
  try {
    text = readFileSync(layer.file, 'utf8');
  } catch (cause) {
    throw new RalphError(
      'config_unreadable',
      `cannot read config file ${layer.file}: ${whyUnreadable(layer.file, cause)} — check the path (-c FILE) and that the file is readable`,
      {
        cause,
      },
    );
  }
  const labelOf = (file: string) => {
    const rel = relative(cwd, file);
    return rel.startsWith('..') ? file : rel;
  };
  const label = labelOf(layer.file);
  const { raw: written, ...doc } = parseConfigText(text, label);
  const imported = resolveHatImports(written, doc, layer.file, parseConfigText, labelOf);
  // A hats source keeps only what it may set; the rest is warned about (hats-source.ts).
  const source =
    layer.kind === 'hats'
      ? hatsSourceLayer(imported.raw, {
          label,
          builtin: layer.builtin === true,
          locateKey: (key) => locate(doc, [], key),
        })
      : undefined;
  // ralph-orchestrator's keys are read its way before the schema sees the layer (the warned ones removed).
  const { raw, warnings, notes } = adaptOrchestratorLayer(source?.raw ?? imported.raw);
  const at = (notes: KeyNote[]) =>
    notes.map((n) => keyIssue(doc, n)).sort((a, b) => a.line - b.line || a.col - b.col);
  return {
    ...layer,
    label,
    doc,
    raw,
    warnings: at([...(source?.warnings ?? []), ...warnings]),
    notes: at(notes),
    imports: imported.imports,
  };
}

/** A note about a key, located at the key itself in its file. */
function keyIssue(doc: SourceDoc, note: KeyNote): ConfigIssue {
  const pos = locate(doc, note.path.slice(0, -1), note.path.at(-1));
  return { file: doc.label, line: pos.line, col: pos.col, path: note.path.join('.'), message: note.message };
}
