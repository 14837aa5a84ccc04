import { mapCommandBackend } from './command-backends.ts';
import { mapHatBackend } from './hat-backend.ts';
import { IGNORED_KEYS, type KeyPattern, V1_HAT_KEYS, V1_KEYS } from './orchestrator-keys.ts';

/** A key of a layer and a line about it: a warning (ignored) or a note (read as another key). */
export interface KeyNote {
  /** The key's path in the layer as written. */
  path: readonly string[];
  message: string;
}

/** A layer read the way ralph-orchestrator reads it, and what was ignored or mapped. */
export interface AdaptedLayer {
  raw: Record<string, unknown>;
  warnings: KeyNote[];
  notes: KeyNote[];
}

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every concrete path of `raw` that `pattern` matches (`*` over a mapping's keys). */
function matches(raw: Plain, pattern: KeyPattern, prefix: string[] = []): string[][] {
  const [head, ...rest] = pattern;
  if (head === undefined) return [prefix];
  const keys = head === '*' ? Object.keys(raw) : Object.hasOwn(raw, head) ? [head] : [];
  return keys.flatMap((key) => {
    if (rest.length === 0) return [[...prefix, key]];
    const child = raw[key];
    return isPlain(child) ? matches(child, rest, [...prefix, key]) : [];
  });
}

/** A copy of `raw` with the mappings on the path copied too, so the caller's object is never changed. */
function cloneDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneDeep);
  if (!isPlain(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneDeep(v)]));
}

function parentOf(raw: Plain, path: readonly string[]): Plain {
  let node = raw;
  for (const key of path.slice(0, -1)) node = node[key] as Plain;
  return node;
}

/**
 * One config layer read as ralph-orchestrator reads it (pure): its ignored keys removed (a warning
 * each), its v1 flat keys and hat keys moved to the keys Ralph reads (a note each; v1 wins over the
 * nested key, as in ralph-orchestrator), a hat's `backend: {type, …}` made Ralph's hat keys, and
 * `cli.backend: kiro|kiro-acp|roo|forge` the command it runs (`backend: custom`).
 */
export function adaptOrchestratorLayer(input: Record<string, unknown>): AdaptedLayer {
  const raw = cloneDeep(input) as Plain;
  const warnings: KeyNote[] = [];
  const notes: KeyNote[] = [];
  for (const { path, instead } of IGNORED_KEYS)
    for (const found of matches(raw, path)) {
      delete parentOf(raw, found)[found.at(-1) as string];
      warnings.push({ path: found, message: `ralph-orchestrator key: ${instead}` });
    }
  for (const [v1, target] of Object.entries(V1_KEYS)) {
    if (!Object.hasOwn(raw, v1)) continue;
    const [section, key] = target as [string, string];
    const nested = raw[section];
    // A section that is not a mapping is the schema's error to report; the v1 key is left alone.
    if (nested !== undefined && !isPlain(nested)) continue;
    raw[section] = { ...(nested ?? {}), [key]: raw[v1] };
    delete raw[v1];
    notes.push({ path: [v1], message: `v1 key ${v1} read as ${target.join('.')}` });
  }
  const command = mapCommandBackend(raw.cli);
  if (command) {
    raw.cli = command.cli;
    notes.push({ path: ['cli', 'backend'], message: command.note });
  }
  const hats = raw.hats;
  if (isPlain(hats))
    for (const [id, hat] of Object.entries(hats)) {
      if (!isPlain(hat)) continue;
      for (const [v1, key] of Object.entries(V1_HAT_KEYS)) {
        if (!Object.hasOwn(hat, v1)) continue;
        if (!Object.hasOwn(hat, key)) hat[key] = hat[v1];
        delete hat[v1];
        notes.push({ path: ['hats', id, v1], message: `v1 key ${v1} read as hats.${id}.${key}` });
      }
      const mapped = mapHatBackend(hat);
      if (mapped) {
        // Defined, not assigned: a hat named `__proto__` stays a key of the mapping.
        Object.defineProperty(hats, id, {
          value: mapped.hat,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        notes.push({ path: ['hats', id, 'backend'], message: mapped.note });
      }
    }
  return { raw, warnings, notes };
}
