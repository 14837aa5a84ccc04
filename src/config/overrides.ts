import { parse as parseYamlValue } from 'yaml';
import { UsageError } from '../errors.ts';

/** One `--set key.path=value` (or a CLI flag mapped onto a config path). */
export interface ConfigOverride {
  path: string[];
  value: unknown;
  /** What the user typed, for error messages (`--set a.b=c`, `--max-iterations`). */
  source: string;
  /** When the path holds an object (the long form of a key with a short form, `sandbox:`), the value sets this key of it instead. */
  intoObjectKey?: string | undefined;
}

/**
 * Parses `key.path=value` (`ralph run --set`) into an override for `resolveRun` or `loadConfig`; the
 * value is read as a YAML scalar/flow value (`3`, `true`, `[a, b]`). Throws a {@link UsageError}
 * without `=` or with an empty key segment.
 */
export function parseSetOverride(text: string): ConfigOverride {
  const eq = text.indexOf('=');
  if (eq <= 0) {
    throw new UsageError(
      `--set expects key.path=value, got "${text}" (example: --set event_loop.max_iterations=5)`,
    );
  }
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  const path = key.split('.');
  if (path.some((p) => p.length === 0)) {
    throw new UsageError(
      `--set key "${key}" has an empty segment (example: --set event_loop.max_iterations=5)`,
    );
  }
  let value: unknown;
  try {
    value = raw === '' ? '' : parseYamlValue(raw);
  } catch {
    value = raw;
  }
  return { path, value, source: `--set ${text}` };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns a copy of `raw` with every override applied in order (later wins). */
export function applyOverrides(
  raw: Record<string, unknown>,
  overrides: readonly ConfigOverride[],
): Record<string, unknown> {
  const root: Record<string, unknown> = structuredClone(raw);
  for (const { path, value, source, intoObjectKey } of overrides) {
    let node: Record<string, unknown> = root;
    for (const segment of path.slice(0, -1)) {
      const next = node[segment];
      if (next === undefined || next === null) {
        const created: Record<string, unknown> = {};
        node[segment] = created;
        node = created;
      } else if (isPlainObject(next)) {
        node = next;
      } else {
        throw new UsageError(`${source}: "${segment}" is not a section, it holds a value`);
      }
    }
    const last = path.at(-1)!;
    const held = node[last];
    if (intoObjectKey !== undefined && isPlainObject(held)) held[intoObjectKey] = value;
    else node[last] = value;
  }
  return root;
}
