import { locate, overrideFor } from './config-issues.ts';
import { topmostWith } from './config-layers.ts';
import type { LoadedConfig } from './load-config.ts';
import { importedDoc } from './orchestrator/hat-imports.ts';

/** One resolved key: its value and the layer it came from (`default` when no layer sets it). */
export interface ExplainedKey {
  path: string;
  value: unknown;
  source: string;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every leaf of the resolved config (lists and values; maps are walked). */
function leaves(value: unknown, path: string[] = []): [string[], unknown][] {
  if (!isMap(value) || (Object.keys(value).length === 0 && path.length > 0)) return [[path, value]];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
}

/**
 * Where the value at `path` came from: the flag or `--set` that set it, the topmost layer file that
 * sets it (`project ralph.yml:4`, with its line), or `default`.
 */
export function sourceOf(
  loaded: LoadedConfig,
  path: readonly string[],
  options: {
    /** false: `--set KEY` without its `=VALUE` (the source of a secret must not print it). */
    value?: boolean;
  } = {},
): string {
  const override = overrideFor(path, loaded.overrides);
  if (override && options.value === false && override.source.startsWith('--set '))
    return `--set ${override.path.join('.')}`;
  if (override) return override.source;
  const layer = topmostWith(loaded.layers, path);
  if (!layer) return 'default';
  const imported = importedDoc(layer.imports, path);
  const where = imported
    ? `${layer.kind} ${layer.label}, imported from ${imported.label}:${locate(imported, path).line}`
    : `${layer.kind} ${layer.label}:${locate(layer.doc, path).line}`;
  if (!loaded.dropped?.some((d) => d.join('.') === path.join('.'))) return where;
  // A file's cli.command, args or model belong to its backend: another one picked drops them.
  const by = overrideFor(['cli', 'backend'], loaded.overrides)?.source ?? 'the backend chosen';
  return `default (${where} is for another backend than ${by} picks)`;
}

/**
 * `ralph config explain [key]`: each key's value and where it came from (sourceOf), from
 * `config` (default: the loaded one; the CLI passes it with its secrets masked). `key` narrows to
 * that key or section.
 */
export function explainConfig(
  loaded: LoadedConfig,
  key?: string,
  config: unknown = loaded.config,
): ExplainedKey[] {
  const out: ExplainedKey[] = [];
  for (const [path, value] of leaves(config)) {
    const dotted = path.join('.');
    if (key !== undefined && dotted !== key && !dotted.startsWith(`${key}.`)) continue;
    out.push({ path: dotted, value, source: sourceOf(loaded, path) });
  }
  return out;
}
