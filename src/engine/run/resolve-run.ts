import { backendCapabilityIssues, pickAutoBackend, resolveBackend } from '../../backends/registry.ts';
import type { Backend } from '../../backends/types.ts';
import { type LoadedConfig, loadConfig } from '../../config/load-config.ts';
import type { ConfigOverride } from '../../config/overrides.ts';
import {
  agentEnvOverrides,
  backendOverrides,
  choosePrompt,
  configLayers,
  type PromptChoice,
  withoutOtherBackendSettings,
} from '../../config/run-config.ts';
import type { BackendName, RalphConfig } from '../../config/schema.ts';

/** What a run is resolved from: the workspace, the config files and what overrides them. */
export interface ResolveRunOptions {
  /** The workspace: where ralph.yml and PROMPT.md are found and relative paths start. */
  cwd: string;
  /** The project config file (`-c`); it must exist. Default: `ralph.yml` or `ralph.yaml` in `cwd`. */
  configPath?: string | undefined;
  /** A preset's ralph.yml as a layer over the project file (`--preset NAME`), without `ralph init`. */
  preset?: string | undefined;
  /**
   * Config values over every file and `RALPH_AGENT`, applied in order (`--set`, `--max-iterations` …);
   * each names its source for error messages. Parse `key=value` text with `parseSetOverride`.
   */
  overrides?: readonly ConfigOverride[] | undefined;
  /** The agent backend (`-b NAME`), over the files, `RALPH_AGENT` and `overrides`. */
  backend?: string | undefined;
  /** The prompt text or file; default event_loop.prompt, event_loop.prompt_file, then PROMPT.md. */
  prompt?: PromptChoice | undefined;
  /** The environment (`RALPH_AGENT`, `PATH` for `cli.backend: auto`, the user config). Default: process.env. */
  env?: NodeJS.ProcessEnv | undefined;
}

/** A run ready for `runLoop`: its config, its prompt and where they came from, and its backend. */
export interface ResolvedRun {
  config: RalphConfig;
  /** The project config file read, or undefined when only defaults, the user config or a preset applied. */
  configFile: string | undefined;
  prompt: string;
  /** Where the prompt came from (`-p`, `PROMPT.md`, `event_loop.prompt_file` …). */
  promptSource: string;
  backend: Backend;
}

/** The `auto` pick of one resolution: PATH is searched (for ~10 agent CLIs) once, when first asked. */
export function autoPicker(env: NodeJS.ProcessEnv, cwd: string): () => BackendName | undefined {
  let searched = false;
  let picked: BackendName | undefined;
  return () => {
    if (!searched) picked = pickAutoBackend(env, cwd);
    searched = true;
    return picked;
  };
}

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
  const usesAuto = (config: RalphConfig) =>
    config.cli.backend === 'auto' || Object.values(config.hats).some((hat) => hat.backend === 'auto');
  return [
    (_config: RalphConfig, loaded: LoadedConfig) => {
      const used = withoutOtherBackendSettings(loaded, given);
      return backendCapabilityIssues(used, usesAuto(used) ? pick() : undefined);
    },
  ];
}

/** `cli.backend: auto` becomes the first agent CLI installed on PATH (see AUTO_ORDER). */
export function withAutoBackend(
  config: RalphConfig,
  cwd: string,
  env: NodeJS.ProcessEnv,
  pick = autoPicker(env, cwd),
): RalphConfig {
  if (config.cli.backend !== 'auto') return config;
  const picked = pick();
  if (!picked) return config; // resolveBackend explains what to install or set
  return { ...config, cli: { ...config.cli, backend: picked } };
}

/**
 * The config a run uses, without its prompt: the layers (user config, project file, preset),
 * `RALPH_AGENT`, the overrides and the backend, `cli.backend: auto` resolved. `ralph doctor` judges
 * this one too.
 */
export function resolveRunConfig(options: Omit<ResolveRunOptions, 'prompt'>): {
  config: RalphConfig;
  configFile: string | undefined;
} {
  const { cwd } = options;
  const env = options.env ?? process.env;
  const layers = configLayers(cwd, env, { config: options.configPath, preset: options.preset });
  const given = [...(options.overrides ?? []), ...backendOverrides(options.backend)];
  // The schema check and the resolution below ask the same question of PATH: one search.
  const pick = autoPicker(env, cwd);
  const loaded = loadConfig({
    layers,
    cwd,
    overrides: [...agentEnvOverrides(env), ...given],
    checks: configChecks(cwd, env, pick, given),
  });
  return {
    config: withAutoBackend(withoutOtherBackendSettings(loaded, given), cwd, env, pick),
    configFile: layers.find((l) => l.kind === 'project')?.file,
  };
}

/**
 * Resolves everything `ralph run` decides before its loop starts: the config (discovery, layers,
 * `RALPH_AGENT`, overrides, `cli.backend: auto`), the prompt and the backend. Throws a RalphError
 * that says what to fix (a missing `-c` file, an invalid key with its file:line:col, no prompt, an
 * agent CLI that is not installed).
 */
export function resolveRun(options: ResolveRunOptions): ResolvedRun {
  const { config, configFile } = resolveRunConfig(options);
  const prompt = choosePrompt(options.cwd, options.prompt, config, options.preset);
  return {
    config,
    configFile,
    prompt: prompt.text,
    promptSource: prompt.source,
    backend: resolveBackend(config.cli.backend, config),
  };
}
