import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConfigLayer } from '../../config/config-layers.ts';
import type { ConfigOverride } from '../../config/overrides.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { secretPaths } from '../../observe/config-secrets.ts';
import { createRedactor } from '../../observe/redact.ts';
import { packageVersion } from '../../paths-package.ts';
import { trace, tracing } from '../../process/debug-trace.ts';
import { configCacheFile, readConfigCache, writeConfigCache } from '../../state/cache/config-cache.ts';
import { statKey } from '../../state/io/stat-cache.ts';
import {
  finishRun,
  type ResolvedRun,
  type ResolveRunOptions,
  runConfigInputs,
  usesAutoBackend,
} from './run-inputs.ts';

/**
 * `resolveRun` for `ralph run`'s start: the same run, the config from the user's config cache
 * (state/cache/config-cache.ts: outside the workspace, owner-only) when nothing it was resolved from
 * changed (configCacheKey below). On a miss the YAML parser and the schema load (a separate chunk
 * of the bundle) and the result is saved for the next start. Not cached: a config leaving a
 * backend to `auto` (PATH decides it) and one holding a secret (the cache holds none).
 */
export async function resolveRunCached(options: ResolveRunOptions): Promise<ResolvedRun> {
  const inputs = runConfigInputs(options);
  const cacheInputs = {
    ...inputs,
    configPath: options.configPath,
    preset: options.preset,
    hats: options.hats,
  };
  const key = configCacheKey(cacheInputs);
  const hit =
    key === undefined ? undefined : readConfigCache(configCacheFile(inputs.env, inputs.cwd, key), key);
  if (tracing())
    trace({
      kind: 'cache',
      name: 'config',
      hit: hit !== undefined,
      of: inputs.layers.map((l) => l.file).join(', ') || '(no file)',
    });
  if (hit !== undefined)
    return finishRun(options, {
      config: hit as unknown as RalphConfig,
      configFile: inputs.configFile,
      configFiles: inputs.layers.map((l) => l.file),
    });

  // A miss goes through the one door, as every command does; the cache holds its config before `auto`.
  const { resolveRunConfig } = await import('./resolve-run.ts');
  const resolved = resolveRunConfig(options);
  const { config } = resolved.loaded;
  // The files read may have changed since the key was taken: then the key may not name this config.
  // A config with warnings is read each start, so each start says them (the cache holds none).
  const quiet = resolved.configWarnings.length === 0;
  // The key hashes the layer files, not the hat files they import: a config importing one is read each start.
  const imports = resolved.loaded.layers.some((l) => l.imports.length > 0);
  if (
    key !== undefined &&
    quiet &&
    !imports &&
    cacheable(config, inputs.env) &&
    configCacheKey(cacheInputs) === key
  )
    writeConfigCache(inputs.env, inputs.cwd, key, config);
  return finishRun(options, resolved);
}

/**
 * Cached only without `auto` and without a secret-bearing value (secretPaths: the bot token,
 * `cli.env`, a key the log redaction knows): Ralph writes no secret to its cache.
 */
function cacheable(config: RalphConfig, env: NodeJS.ProcessEnv): boolean {
  return !usesAutoBackend(config) && secretPaths(config, createRedactor(env)).length === 0;
}

/** What a run's config is resolved from (all of it: a change of any part is a miss). */
export interface ConfigCacheInputs {
  cwd: string;
  configPath: string | undefined;
  preset: string | undefined;
  /** The hats source as given (`-H`); its file is among `layers`. */
  hats?: string | undefined;
  layers: readonly ConfigLayer[];
  /** Every override in order: RALPH_AGENT's, `--set`, the flags, `-b`. */
  overrides: readonly ConfigOverride[];
  env: NodeJS.ProcessEnv;
}

/** This build: a rebuild or an update rewrites the module file (new inode and times). */
function buildStamp(): { version: string; stat: string } {
  return { version: packageVersion(), stat: statKey(fileURLToPath(import.meta.url)) };
}

/**
 * The key of `inputs` as text, or undefined when a layer file cannot be read (a miss). Each layer
 * file is named by a hash of its bytes, not its stat: an edit that keeps size and times still
 * changes the key.
 */
export function configCacheKey(inputs: ConfigCacheInputs): string | undefined {
  try {
    return JSON.stringify({
      format: 3,
      build: buildStamp(),
      cwd: inputs.cwd,
      configPath: inputs.configPath ?? null,
      preset: inputs.preset ?? null,
      hats: inputs.hats ?? null,
      ralphAgent: inputs.env.RALPH_AGENT ?? null,
      layers: inputs.layers.map((l) => ({
        kind: l.kind,
        file: l.file,
        sha256: hash('sha256', readFileSync(l.file), 'hex'),
      })),
      overrides: inputs.overrides.map((o) => ({
        path: o.path,
        value: o.value,
        source: o.source,
        into: o.intoObjectKey,
      })),
    });
  } catch {
    return undefined;
  }
}
