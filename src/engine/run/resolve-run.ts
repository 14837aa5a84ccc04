import { backendCapabilityIssues } from '../../backends/registry.ts';
import { type LoadedConfig, loadConfig } from '../../config/load-config.ts';
import type { ConfigOverride } from '../../config/overrides.ts';
import { withoutOtherBackendSettings } from '../../config/run-config.ts';
import type { BackendName, RalphConfig } from '../../config/schema.ts';
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
 * The checks every command that loads ralph.yml runs beyond the schema: what the chosen backends can
 * honour, judged on the config the run uses (`-b` over a file written for another backend drops the
 * file's `cli.command`, `args`, `model`, `models`: withoutOtherBackendSettings, given the command
 * line's overrides `given`).
 */
export function configChecks(
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
 * asked by the checks when a backend is `auto`).
 */
export function loadRunConfig(
  inputs: RunConfigInputs,
  pick: () => BackendName | undefined,
): { config: RalphConfig; loaded: LoadedConfig } {
  const { cwd, env, layers, given, overrides } = inputs;
  const loaded = loadConfig({ layers, cwd, overrides, checks: configChecks(cwd, env, pick, given) });
  return { config: withoutOtherBackendSettings(loaded, given), loaded };
}

/**
 * The config a run uses, without its prompt: the layers (user config, project file, preset),
 * `RALPH_AGENT`, the overrides and the backend, `cli.backend: auto` resolved; `loaded` says where
 * each value came from. `ralph doctor` judges this one too.
 */
export function resolveRunConfig(options: Omit<ResolveRunOptions, 'prompt'>): {
  config: RalphConfig;
  configFile: string | undefined;
  loaded: LoadedConfig;
} {
  const inputs = runConfigInputs(options);
  // The schema check and the resolution below ask the same question of PATH: one search.
  const pick = autoPicker(inputs.env, inputs.cwd);
  const { config, loaded } = loadRunConfig(inputs, pick);
  return {
    config: withAutoBackend(config, inputs.cwd, inputs.env, pick),
    configFile: inputs.configFile,
    loaded,
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
