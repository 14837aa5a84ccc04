import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConfigLayer } from '../../config/config-layers.ts';
import type { ConfigOverride } from '../../config/overrides.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { packageVersion } from '../../paths-package.ts';
import { replaceFileSync } from '../../state/io/atomic-write.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import { RACY_WINDOW_MS, settledStatKey, statKey } from '../../state/io/stat-cache.ts';
import { ralphPaths } from '../../state/paths.ts';
import { runtimeIgnoreLines } from '../../state/runtime-ignore.ts';
import {
  autoPicker,
  finishRun,
  type ResolvedRun,
  type ResolveRunOptions,
  runConfigInputs,
  usesAutoBackend,
  withAutoBackend,
} from './run-inputs.ts';

// Not `import … from 'node:util'`: building node:util's ES-module facade reads every export,
// loading parseArgs and MIMEType at each start; getBuiltinModule hands over the CommonJS object.
const { isDeepStrictEqual } = process.getBuiltinModule('node:util');

/**
 * `resolveRun` for `ralph run`'s start: the same run, the config from `.ralph/cache/config.json`
 * when nothing it was resolved from changed (configCacheKey below). On a miss the YAML parser and the
 * schema load (a separate chunk of the bundle) and the result is saved for the next start. A config
 * leaving a backend to `auto` is not cached: PATH decides it.
 */
export async function resolveRunCached(
  options: ResolveRunOptions & {
    /** The clock (ms since the epoch) the cache's racy window is judged by. Default: Date.now. */
    now?: (() => number) | undefined;
  },
): Promise<ResolvedRun> {
  const inputs = runConfigInputs(options);
  const paths = ralphPaths(inputs.cwd);
  const cacheInputs = { ...inputs, configPath: options.configPath, preset: options.preset };
  const key = configCacheKey(cacheInputs);
  const hit = key === undefined ? undefined : readConfigCache(paths.configCache, key);
  if (hit !== undefined)
    return finishRun(options, { config: hit as RalphConfig, configFile: inputs.configFile });

  const { loadRunConfig } = await import('./resolve-run.ts');
  const pick = autoPicker(inputs.env, inputs.cwd);
  const config = loadRunConfig(inputs, pick);
  if (key !== undefined && cacheable(config, paths.gitignore) && configCacheKey(cacheInputs) === key)
    writeConfigCache(paths.configCache, key, config, inputs.layers, (options.now ?? Date.now)());
  return finishRun(options, {
    config: withAutoBackend(config, inputs.cwd, inputs.env, pick),
    configFile: inputs.configFile,
  });
}

/**
 * Cached only without `auto` and once `.ralph/.gitignore` keeps the cache out of git (written by
 * `ralph init` and by every run before its agent starts): a cache file must never show up as a
 * change in the user's tree before that.
 */
function cacheable(config: RalphConfig, gitignore: string): boolean {
  if (usesAutoBackend(config)) return false;
  const line = runtimeIgnoreLines().find((l) => l.startsWith('cache'));
  return line !== undefined && (readOptional(gitignore, 'absent')?.split('\n').includes(line) ?? false);
}

/**
 * The validated config of the last `ralph run` (`.ralph/cache/config.json`), so a start where
 * nothing changed skips the YAML parser, the config schema's construction and its parse (~40 ms
 * of a ~200 ms start). The key holds everything the resolved config depends on: every layer file's
 * identity and stat, the overrides (`--set`, the flags, `RALPH_AGENT`), `-c`/`--preset`, the
 * workspace and this build of Ralph. Anything unexpected reads as a miss.
 */

/**
 * A layer file changed within RACY_WINDOW_MS of the cache's write is not trusted (settledStatKey):
 * a file can be rewritten within one tick of the file system's clock after it was read, keeping its
 * size and timestamps (the "racily clean" entry of git's index). One old enough that the clock has
 * moved on since gets new times with any edit, so its stat identifies its content.
 */
export { RACY_WINDOW_MS };

/** What a run's config is resolved from (all of it: a change of any part is a miss). */
export interface ConfigCacheInputs {
  cwd: string;
  configPath: string | undefined;
  preset: string | undefined;
  layers: readonly ConfigLayer[];
  /** Every override in order: RALPH_AGENT's, `--set`, the flags, `-b`. */
  overrides: readonly ConfigOverride[];
  env: NodeJS.ProcessEnv;
}

/** This build: a rebuild or an update rewrites the module file (new inode and times). */
function buildStamp(): { version: string; stat: string } {
  return { version: packageVersion(), stat: statKey(fileURLToPath(import.meta.url)) };
}

/** The key of `inputs` as text, or undefined when a file cannot be stat'ed (a miss). */
export function configCacheKey(inputs: ConfigCacheInputs): string | undefined {
  try {
    return JSON.stringify({
      format: 1,
      build: buildStamp(),
      cwd: inputs.cwd,
      configPath: inputs.configPath ?? null,
      preset: inputs.preset ?? null,
      ralphAgent: inputs.env.RALPH_AGENT ?? null,
      layers: inputs.layers.map((l) => ({ kind: l.kind, file: l.file, stat: statKey(l.file) })),
      overrides: inputs.overrides.map((o) => ({ path: o.path, value: o.value, source: o.source })),
    });
  } catch {
    return undefined;
  }
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

/** The entry's text, or undefined when JSON cannot carry `value` exactly (then nothing is cached). */
export function encodeEntry(key: string, value: unknown): string | undefined {
  const config = JSON.stringify(value, (_k, v: unknown) => (v === undefined ? UNDEFINED : v));
  if (config === undefined || !isDeepStrictEqual(restoreUndefined(JSON.parse(config)), value))
    return undefined;
  return `{"key":${JSON.stringify(key)},"value":${config}}\n`;
}

/** The cached value for `key`: undefined when there is none, it is another key's or unreadable. */
export function readConfigCache(file: string, key: string): unknown {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; value?: unknown };
    if (entry === null || entry.key !== key || entry.value === undefined) return undefined;
    return restoreUndefined(entry.value);
  } catch {
    return undefined;
  }
}

/**
 * Saves `value` under `key`, unless a layer file changed within RACY_WINDOW_MS of `now` (it might
 * change again unseen). Not a durable write: a failure (a read-only disk) is no cache.
 */
export function writeConfigCache(
  file: string,
  key: string,
  value: unknown,
  layers: readonly ConfigLayer[],
  now: number,
): boolean {
  try {
    if (layers.some((l) => settledStatKey(l.file, now) === undefined)) return false;
    const text = encodeEntry(key, value);
    if (text === undefined) return false;
    replaceFileSync(file, text, false);
    return true;
  } catch {
    return false;
  }
}
