import { pickAutoBackend, resolveBackend } from '../../backends/registry.ts';
import type { Backend } from '../../backends/types.ts';
import type { ConfigLayer } from '../../config/config-layers.ts';
import type { ConfigOverride } from '../../config/overrides.ts';
import {
  agentEnvOverrides,
  backendOverrides,
  choosePrompt,
  configLayers,
  type PromptChoice,
} from '../../config/run-config.ts';
import type { BackendName, RalphConfig } from '../../config/schema.ts';

// What resolving a run needs besides loading and validating ralph.yml: the config's inputs, the
// `auto` backend, the prompt and the backend. Without the YAML parser and the schema (zod), so
// `ralph run` can start from its config cache (resolve-run-cached.ts) without loading them.

/** What a run is resolved from: the workspace, the config files and what overrides them. */
export interface ResolveRunOptions {
  /** The workspace: where ralph.yml and PROMPT.md are found and relative paths start. */
  cwd: string;
  /** The project config file (`-c`); it must exist. Default: `ralph.yml` or `ralph.yaml` in `cwd`. */
  configPath?: string | undefined;
  /** A preset's ralph.yml as a layer over the project file (`--preset NAME`), without `ralph init`. */
  preset?: string | undefined;
  /**
   * A hats source (`-H`): a YAML file of hats, or `builtin:NAME` (a preset's hats), whose `hats`
   * and `events` replace the config's and whose `event_loop` workflow keys override it.
   */
  hats?: string | undefined;
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
  /** The config's warnings (ralph-orchestrator keys Ralph ignores) as `file:line:col: key: …` lines: `runLoop`'s `configWarnings`. */
  configWarnings: string[];
  /** Every config file the config was layered from (user config, project file, preset, hats source, imported hats): read-only to a sandboxed agent. */
  configFiles?: readonly string[] | undefined;
}

/** What a run's config is resolved from: its layer files, in order, and every override. */
export interface RunConfigInputs {
  cwd: string;
  env: NodeJS.ProcessEnv;
  layers: ConfigLayer[];
  /** The command line's overrides: `overrides`, then `-b`. */
  given: ConfigOverride[];
  /** Every override in order: `RALPH_AGENT`'s, then `given`. */
  overrides: ConfigOverride[];
  /** The project file among the layers. */
  configFile: string | undefined;
}

/** Finds the layer files (user config, project file, preset) and gathers the overrides. */
export function runConfigInputs(options: Omit<ResolveRunOptions, 'prompt'>): RunConfigInputs {
  const { cwd } = options;
  const env = options.env ?? process.env;
  const layers = configLayers(cwd, env, {
    config: options.configPath,
    preset: options.preset,
    hats: options.hats,
  });
  const given = [...(options.overrides ?? []), ...backendOverrides(options.backend)];
  return {
    cwd,
    env,
    layers,
    given,
    overrides: [...agentEnvOverrides(env), ...given],
    configFile: layers.find((l) => l.kind === 'project')?.file,
  };
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

/** Whether `config` leaves a backend to `auto` (then PATH decides the run's backend and its checks). */
export function usesAutoBackend(config: RalphConfig): boolean {
  return config.cli.backend === 'auto' || Object.values(config.hats).some((hat) => hat.backend === 'auto');
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

/** The rest of a run once its config is resolved: the prompt and the backend. */
export function finishRun(
  options: ResolveRunOptions,
  resolved: {
    config: RalphConfig;
    configFile: string | undefined;
    configWarnings?: string[];
    configFiles?: readonly string[] | undefined;
  },
): ResolvedRun {
  const { config, configFile, configFiles } = resolved;
  const prompt = choosePrompt(options.cwd, options.prompt, config, options.preset);
  return {
    config,
    configFile,
    prompt: prompt.text,
    promptSource: prompt.source,
    backend: resolveBackend(config.cli.backend, config),
    configWarnings: resolved.configWarnings ?? [],
    configFiles,
  };
}
