import { backendCapabilityIssues } from '../../backends/registry.ts';
import { topmostWith } from '../../config/config-layers.ts';
import { type LoadedConfig, loadConfig } from '../../config/load-config.ts';
import type { ConfigOverride } from '../../config/overrides.ts';
import { withoutOtherBackendSettings } from '../../config/run-config.ts';
import type { BackendName, RalphConfig } from '../../config/schema.ts';
import { ConfigError } from '../../errors.ts';
import {
  autoPicker,
  finishRun,
  type ResolvedRun,
  type ResolveRunOptions,
  type RunConfigInputs,
  runConfigInputs,
  usesAutoBackend,
  withAutoBackend,
} from './run-inputs.ts';

export type { ResolvedRun, ResolveRunOptions } from './run-inputs.ts';

/**
 * The checks beyond the schema: what the chosen backends can
 * honour, judged on the config the run uses (`-b` over a file written for another backend drops the
 * file's `cli.command`, `args`, `model`, `models`: withoutOtherBackendSettings, given the command
 * line's overrides `given`).
 */
function configChecks(
  cwd: string,
  env: NodeJS.ProcessEnv,
  pick = autoPicker(env, cwd),
  given: readonly ConfigOverride[] = [],
) {
  // PATH is searched for ~10 CLIs only when a backend is `auto`: the pick matters to nothing else.
  return [
    (_config: RalphConfig, loaded: LoadedConfig) => {
      const used = withoutOtherBackendSettings(loaded, given);
      return backendCapabilityIssues(used, usesAutoBackend(used) ? pick() : undefined);
    },
  ];
}

/**
 * The config of `inputs` loaded and checked, before `cli.backend: auto` is resolved (`pick`, also
 * asked by the checks when a backend is `auto`). `loaded.config` is that config too: what config
 * show and explain print is what the run uses, a file's `cli.command` … dropped by `-b` or
 * `RALPH_AGENT` included (`loaded.dropped`).
 */
function loadRunConfig(
  inputs: RunConfigInputs,
  pick: () => BackendName | undefined,
): { config: RalphConfig; loaded: LoadedConfig } {
  const { cwd, env, layers, given, overrides } = inputs;
  const loaded = loadConfig({ layers, cwd, overrides, checks: configChecks(cwd, env, pick, given) });
  const config = withoutOtherBackendSettings(loaded, given);
  return { config, loaded: { ...loaded, config, dropped: droppedKeys(loaded, config) } };
}

/** The `cli` keys a layer sets that withoutOtherBackendSettings took out of `config`. */
function droppedKeys(loaded: LoadedConfig, config: RalphConfig): string[][] {
  if (config === loaded.config) return [];
  return (['command', 'args', 'model', 'models'] as const)
    .filter((key) => config.cli[key] !== loaded.config.cli[key])
    .map((key) => ['cli', key])
    .filter((path) => topmostWith(loaded.layers, path) !== undefined);
}

/** What every command that reads the config gets from resolveRunConfig. */
export interface RunConfig {
  /** The config the run uses, `cli.backend: auto` resolved to the first agent CLI on PATH. */
  config: RalphConfig;
  /** The project file read, if any. */
  configFile: string | undefined;
  /** Every file read (user config, project file, preset, hats source, the hat files they import). */
  configFiles: string[];
  /** Where each value came from; its `config` is the run's before `auto` is resolved. */
  loaded: LoadedConfig;
  /** `loaded.warnings` as lines (`file:line:col: key: …`), for the run's start. */
  configWarnings: string[];
}

/**
 * The one door to the config: every command that reads it (`ralph run` and `--dry-run`, `config
 * validate`/`show`/`explain`, `hats`, `doctor`, `plan`, task import, the fleet's settings) comes
 * through here, so the layers (user config, project file, preset), `RALPH_AGENT`, the overrides and
 * the backend combine one way and every command names the same backend. `resolveRunCached` puts
 * the config cache in front of it (its key from the same runConfigInputs).
 */
export function resolveRunConfig(options: Omit<ResolveRunOptions, 'prompt'>): RunConfig {
  const inputs = runConfigInputs(options);
  // The schema check and the resolution below ask the same question of PATH: one search.
  const pick = autoPicker(inputs.env, inputs.cwd);
  const { config, loaded } = loadRunConfig(inputs, pick);
  return {
    config: withAutoBackend(config, inputs.cwd, inputs.env, pick),
    configFile: inputs.configFile,
    configFiles: [
      ...inputs.layers.map((l) => l.file),
      ...loaded.layers.flatMap((l) => l.imports.map((i) => i.file)),
    ],
    loaded,
    configWarnings:
      loaded.warnings.length === 0 ? [] : new ConfigError([...loaded.warnings]).message.split('\n'),
  };
}

/** A resolved run with where its config's values came from (for `ralph run --dry-run`'s masking). */
export type LoadedRun = ResolvedRun & { loaded: LoadedConfig };

/** resolveRun, keeping the loaded layers: what `ralph run --dry-run` prints from. */
export function resolveRunLoaded(options: ResolveRunOptions): LoadedRun {
  const resolved = resolveRunConfig(options);
  return { ...finishRun(options, resolved), loaded: resolved.loaded };
}

/**
 * Resolves everything `ralph run` decides before its loop starts: the config (discovery, layers,
 * `RALPH_AGENT`, overrides, `cli.backend: auto`), the prompt and the backend. Throws a RalphError
 * that says what to fix (a missing `-c` file, an invalid key with its file:line:col, no prompt, an
 * agent CLI that is not installed).
 */
export function resolveRun(options: ResolveRunOptions): ResolvedRun {
  return finishRun(options, resolveRunConfig(options));
}
