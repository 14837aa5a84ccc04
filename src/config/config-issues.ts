import { isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import { z } from 'zod';
import type { ConfigIssue } from '../errors.ts';
import { ignoredKeysAt, PLANNED_KEYS } from './orchestrator/orchestrator-keys.ts';
import type { ConfigOverride } from './overrides.ts';
import { configSchema } from './schema.ts';
import { closestMatch } from './suggest.ts';

/** One parsed YAML layer: how errors name it, its text and the positions of its nodes. */
export interface SourceDoc {
  label: string;
  text: string;
  lineCounter: LineCounter;
  contents: unknown;
}

/** Finds the YAML node for `path` (and, with `key`, the key node of that child). */
export function locate(
  doc: SourceDoc,
  path: readonly PropertyKey[],
  key?: string,
): { line: number; col: number } {
  let node = doc.contents as Node | null | undefined;
  let best: [number, number, number] | undefined = (node as { range?: [number, number, number] } | null)
    ?.range;
  const segments = key === undefined ? path : [...path, key];
  for (let i = 0; i < segments.length && node; i++) {
    const segment = segments[i];
    const wantKeyNode = key !== undefined && i === segments.length - 1;
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (!pair) break;
      const target = (wantKeyNode ? pair.key : (pair.value ?? pair.key)) as Node | null;
      best = (target as { range?: [number, number, number] } | null)?.range ?? best;
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)] as Node | undefined;
      if (!item) break;
      best = (item as { range?: [number, number, number] }).range ?? best;
      node = item;
    } else {
      break;
    }
  }
  if (!best) return { line: 0, col: 0 };
  return doc.lineCounter.linePos(best[0]);
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** The `--set` (or other override) that sets `path`, a key under it or above it; the last one wins. */
export function overrideFor(
  path: readonly PropertyKey[],
  overrides: readonly ConfigOverride[],
): ConfigOverride | undefined {
  const joined = dotted(path);
  return [...overrides].reverse().find((o) => {
    const p = o.path.join('.');
    return joined === p || joined.startsWith(`${p}.`) || p.startsWith(`${joined}.`);
  });
}

/** Each schema problem located: `file:line:col` in the layer that sets the key, or the override that set it. */
export function issuesFromZod(
  error: z.ZodError,
  docFor: (path: readonly PropertyKey[]) => SourceDoc | undefined,
  overrides: readonly ConfigOverride[],
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    for (const key of keys) {
      const fullPath = key === undefined ? issue.path : [...issue.path, key];
      const doc = docFor(fullPath);
      const fileLabel = doc?.label ?? '(defaults)';
      const override = overrideFor(fullPath, overrides);
      let message = issue.message;
      const retired = key === undefined ? undefined : plannedKeyMessage(fullPath);
      if (retired !== undefined) {
        message = retired;
      } else if (key !== undefined) {
        // A misspelt ralph-orchestrator key is suggested too: the warning then says what Ralph does with it.
        const suggestion = closestMatch(key, [
          ...knownKeysAt(configSchema, issue.path),
          ...ignoredKeysAt(issue.path),
        ]);
        message = `unknown key "${key}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`;
      }
      if (override) {
        out.push({ file: override.source, line: 0, col: 0, path: dotted(fullPath), message });
      } else {
        const pos = doc ? locate(doc, issue.path, key) : { line: 0, col: 0 };
        out.push({ file: fileLabel, line: pos.line, col: pos.col, path: dotted(fullPath), message });
      }
    }
  }
  return out;
}

/** Locates a problem found after schema validation the way schema issues are located. */
export function locatedIssue(
  path: readonly PropertyKey[],
  message: string,
  docFor: (path: readonly PropertyKey[]) => SourceDoc | undefined,
  overrides: readonly ConfigOverride[],
): ConfigIssue {
  const doc = docFor(path);
  const override = overrideFor(path, overrides);
  if (override) return { file: override.source, line: 0, col: 0, path: dotted(path), message };
  const pos = doc ? locate(doc, path) : { line: 0, col: 0 };
  return { file: doc?.label ?? '(defaults)', line: pos.line, col: pos.col, path: dotted(path), message };
}

/** Unwraps optional/default/nullable wrappers so the structural schema underneath can be read. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault
    ) {
      current = current.unwrap() as z.ZodType;
    } else {
      return current;
    }
  }
}

/** The keys an object (or an enum-keyed record) at `path` inside `schema` accepts (records are traversed by their value type). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject) {
      const next = (current.shape as Record<string, z.ZodType>)[String(segment)];
      if (next === undefined) return [];
      current = unwrap(next);
    } else if (current instanceof z.ZodRecord) {
      current = unwrap(current.valueType as z.ZodType);
    } else if (current instanceof z.ZodArray) {
      current = unwrap(current.element as z.ZodType);
    } else {
      return [];
    }
  }
  if (current instanceof z.ZodObject) return Object.keys(current.shape);
  // A record keyed by an enum (hooks.events' phase-events) knows its keys too.
  const keyType = current instanceof z.ZodRecord ? (current.keyType as z.ZodType) : undefined;
  return keyType instanceof z.ZodEnum ? (keyType.options as string[]) : [];
}

/** The planned-feature message of a key zod reports as unknown (`hats.<id>.…` matched as `hats.*.…`), if any. */
export function plannedKeyMessage(path: readonly PropertyKey[]): string | undefined {
  const exact = PLANNED_KEYS[dotted(path)];
  if (exact !== undefined || path[0] !== 'hats') return exact;
  return PLANNED_KEYS[dotted(['hats', '*', ...path.slice(2)])];
}
