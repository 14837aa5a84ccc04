import { locate, overrideFor } from './config-issues.ts';
import { topmostWith } from './config-layers.ts';
import type { LoadedConfig } from './load-config.ts';

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
 * `ralph config explain [key]`: each key's value and where it came from — a flag or `--set`, the
 * topmost layer file that sets it (with its line), or the built-in default. `key` narrows to that
 * key or section.
 */
export function explainConfig(loaded: LoadedConfig, key?: string): ExplainedKey[] {
  const out: ExplainedKey[] = [];
  for (const [path, value] of leaves(loaded.config)) {
    const dotted = path.join('.');
    if (key !== undefined && dotted !== key && !dotted.startsWith(`${key}.`)) continue;
    const override = overrideFor(path, loaded.overrides);
    const layer = override ? undefined : topmostWith(loaded.layers, path);
    const source = override
      ? override.source
      : layer
        ? `${layer.kind} ${layer.label}:${locate(layer.doc, path).line}`
        : 'default';
    out.push({ path: dotted, value, source });
  }
  return out;
}
