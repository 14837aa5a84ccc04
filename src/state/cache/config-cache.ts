import { hash } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileSync } from '../io/atomic-write.ts';
import { makeOwnerOnlyDir, readOwnerOnly, userCacheDir } from './user-cache.ts';

// The store of `ralph run`'s config cache (the key and what is cached: engine/run/resolve-run-cached.ts).
// It lives in the user's cache directory, never in the workspace the agent edits, owner-only.

// Not `import … from 'node:util'`: building node:util's ES-module facade reads every export,
// loading parseArgs and MIMEType at each start; getBuiltinModule hands over the CommonJS object.
const { isDeepStrictEqual } = process.getBuiltinModule('node:util');

/** `$XDG_CACHE_HOME/ralph/config` (default `~/.cache/ralph/config`): one file per workspace. */
export function configCacheDir(env: NodeJS.ProcessEnv): string {
  return userCacheDir(env, 'config');
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

/** The entry file names of a workspace start with this: a new entry replaces the workspace's old one. */
const workspacePrefix = (workspace: string) => `${sha256(workspace).slice(0, 16)}-`;

/** The file of `workspace`'s entry for `key`: `<workspace hash>-<key hash>.json` in configCacheDir. */
export function configCacheFile(env: NodeJS.ProcessEnv, workspace: string, key: string): string {
  return join(configCacheDir(env), `${workspacePrefix(workspace)}${sha256(key).slice(0, 32)}.json`);
}

// JSON has no `undefined`; the resolved config keeps keys set to undefined (`cli.command` dropped
// for another backend), and a hit must return exactly what a miss would.
const UNDEFINED = '\u0000ralph:undefined';

function restoreUndefined(value: unknown): unknown {
  if (value === UNDEFINED) return undefined;
  if (Array.isArray(value)) return value.map(restoreUndefined);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = restoreUndefined(v);
    return out;
  }
  return value;
}

/** The digest of an entry: its key and its value's text, so any other value is not taken for it. */
const digestOf = (key: string, valueText: string) => sha256(`${key}\n${valueText}`);

/**
 * The entry's text — a header line (the key's hash, the digest) and the value's line — or
 * undefined when JSON cannot carry `value` exactly (then nothing is cached). The key's text is not
 * written: it holds the `--set` values.
 */
export function encodeEntry(key: string, value: unknown): string | undefined {
  const text = JSON.stringify(value, (_k, v: unknown) => (v === undefined ? UNDEFINED : v));
  if (text === undefined || !isDeepStrictEqual(restoreUndefined(JSON.parse(text)), value)) return undefined;
  return `${JSON.stringify({ key: sha256(key), digest: digestOf(key, text) })}\n${text}\n`;
}

/**
 * The cached value for `key`, or undefined when there is none or it is not exactly what Ralph
 * wrote for that key (another key's, truncated, edited, `{}`, not JSON, not a map, not owner-only).
 */
export function readConfigCache(file: string, key: string): Record<string, unknown> | undefined {
  try {
    const text = readOwnerOnly(file)?.toString('utf8');
    const newline = text?.indexOf('\n') ?? -1;
    if (text === undefined || newline < 0 || !text.endsWith('\n')) return undefined;
    const header = JSON.parse(text.slice(0, newline)) as { key?: unknown; digest?: unknown } | null;
    const valueText = text.slice(newline + 1, -1);
    if (header?.key !== sha256(key) || header.digest !== digestOf(key, valueText)) return undefined;
    const value = restoreUndefined(JSON.parse(valueText));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Saves `value` under `key` for `workspace` (owner-only: the directory 0700, the file 0600) and
 * removes the workspace's other entries. Not a durable write: a failure (a read-only disk, a
 * directory of another user) is no cache.
 */
export function writeConfigCache(
  env: NodeJS.ProcessEnv,
  workspace: string,
  key: string,
  value: unknown,
): boolean {
  try {
    const text = encodeEntry(key, value);
    if (text === undefined) return false;
    const dir = configCacheDir(env);
    makeOwnerOnlyDir(dir);
    const file = configCacheFile(env, workspace, key);
    replaceFileSync(file, text, false, 0o600);
    const prefix = workspacePrefix(workspace);
    for (const name of readdirSync(dir))
      if (name.startsWith(prefix) && name.endsWith('.json') && join(dir, name) !== file)
        rmSync(join(dir, name), { force: true });
    return true;
  } catch {
    return false;
  }
}
