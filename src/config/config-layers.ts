import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Config layers (DESIGN §1), lowest first: built-in defaults → user config → project file →
 * preset → hats source (`-H`) → `--set`/flags. A later layer wins key by key; sections merge,
 * lists and values replace; a hats source's `hats` and `events` replace the sections whole.
 */
export type LayerKind = 'user' | 'project' | 'preset' | 'hats';

export interface ConfigLayer {
  kind: LayerKind;
  file: string;
  /** A hats source that is a built-in collection (a preset's whole ralph.yml: its other keys are not warned). */
  builtin?: boolean | undefined;
}

/** `$XDG_CONFIG_HOME/ralph/config.yml` (default `~/.config/ralph/config.yml`) when it exists. */
export function userConfigFile(env: NodeJS.ProcessEnv): string | undefined {
  const base = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.config');
  const file = join(base, 'ralph', 'config.yml');
  return existsSync(file) ? file : undefined;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `over` merged onto `base` (copies): maps merge key by key; anything else in `over` replaces. */
export function mergeLayer(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = out[key];
    out[key] = isMap(below) && isMap(value) ? mergeLayer(below, value) : structuredClone(value);
  }
  return out;
}

/** Whether `raw` sets the value at `path` (or a part of it). */
export function hasPath(raw: unknown, path: readonly PropertyKey[]): boolean {
  let node: unknown = raw;
  for (const segment of path) {
    if (isMap(node) && Object.hasOwn(node, String(segment))) node = node[String(segment)];
    else if (Array.isArray(node) && Number(segment) < node.length) node = node[Number(segment)];
    else return false;
  }
  return true;
}

/** The topmost of `layers` (lowest first) that sets `path`. */
export function topmostWith<T extends { raw: unknown }>(
  layers: readonly T[],
  path: readonly PropertyKey[],
): T | undefined {
  for (let i = layers.length - 1; i >= 0; i--) if (hasPath(layers[i]!.raw, path)) return layers[i];
  return undefined;
}
