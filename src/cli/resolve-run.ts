import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { backendCapabilityIssues, pickAutoBackend, resolveBackend } from '../backends/registry.ts';
import type { Backend } from '../backends/types.ts';
import { type ConfigLayer, userConfigFile } from '../config/config-layers.ts';
import { type LoadedConfig, loadConfig } from '../config/load-config.ts';
import { type ConfigOverride, parseSetOverride } from '../config/overrides.ts';
import { findPreset, presetFile } from '../config/presets.ts';
import type { RalphConfig } from '../config/schema.ts';
import { RalphError, UsageError } from '../errors.ts';

/** The flags of `ralph run` that shape config, prompt and backend. */
export interface RunFlags {
  config?: string | undefined;
  /** `--preset NAME`: the preset's ralph.yml as a layer over the project file, without `ralph init`. */
  preset?: string | undefined;
  promptFile?: string | undefined;
  prompt?: string | undefined;
  backend?: string | undefined;
  maxIterations?: string | undefined;
  maxRuntime?: string | undefined;
  maxCost?: string | undefined;
  completionPromise?: string | undefined;
  set?: string[] | undefined;
}

export interface ResolvedRun {
  config: RalphConfig;
  configFile: string | undefined;
  prompt: string;
  promptSource: string;
  backend: Backend;
}

/** A flag that must be a positive number (an integer when `integer`). */
export function numberFlag(flag: string, value: string, integer: boolean): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} expects a positive ${integer ? 'integer' : 'number'}, got "${value}"`);
  }
  return n;
}

/** Finds the project config: `-c FILE` (must exist) or `ralph.yml` / `ralph.yaml` in the workspace. */
export function findConfigFile(cwd: string, flag: string | undefined): string | undefined {
  if (flag !== undefined) {
    const path = resolve(cwd, flag);
    if (!existsSync(path)) throw new RalphError('config_unreadable', `config file not found: ${flag}`);
    return path;
  }
  for (const name of ['ralph.yml', 'ralph.yaml']) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * The config files of a command, lowest first: the user config, the project file (`-c` or
 * ralph.yml), and the preset of `--preset`.
 */
export function configLayers(
  cwd: string,
  env: NodeJS.ProcessEnv,
  flags: { config?: string | undefined; preset?: string | undefined },
): ConfigLayer[] {
  const user = userConfigFile(env);
  const project = findConfigFile(cwd, flags.config);
  const preset =
    flags.preset === undefined ? undefined : presetFile(findPreset(flags.preset).name, 'ralph.yml');
  return [
    ...(user ? [{ kind: 'user' as const, file: user }] : []),
    ...(project ? [{ kind: 'project' as const, file: project }] : []),
    ...(preset ? [{ kind: 'preset' as const, file: preset }] : []),
  ];
}

/** The overrides of `--set` and of the dedicated flags, in that order (flags win). */
export function overridesFromFlags(flags: RunFlags): ConfigOverride[] {
  const out = (flags.set ?? []).map(parseSetOverride);
  const add = (path: string, value: unknown, source: string) =>
    out.push({ path: path.split('.'), value, source });
  if (flags.backend !== undefined) add('cli.backend', flags.backend, `--backend ${flags.backend}`);
  if (flags.maxIterations !== undefined)
    add(
      'event_loop.max_iterations',
      numberFlag('--max-iterations', flags.maxIterations, true),
      '--max-iterations',
    );
  if (flags.maxRuntime !== undefined)
    add(
      'event_loop.max_runtime_seconds',
      numberFlag('--max-runtime', flags.maxRuntime, false),
      '--max-runtime',
    );
  if (flags.maxCost !== undefined)
    add('event_loop.max_cost_usd', numberFlag('--max-cost', flags.maxCost, false), '--max-cost');
  if (flags.completionPromise !== undefined)
    add('event_loop.completion_promise', flags.completionPromise, '--completion-promise');
  return out;
}

function readPrompt(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    throw new RalphError('prompt_unreadable', `cannot read ${what} ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** Picks the prompt: -p, then -P, then event_loop.prompt, event_loop.prompt_file, then PROMPT.md. */
export function resolvePrompt(
  cwd: string,
  flags: RunFlags,
  config: RalphConfig,
): { text: string; source: string } {
  if (flags.prompt !== undefined && flags.promptFile !== undefined)
    throw new UsageError('pass either -p TEXT or -P FILE, not both');
  if (flags.prompt !== undefined) return { text: flags.prompt, source: '-p' };
  if (flags.promptFile !== undefined)
    return { text: readPrompt(resolve(cwd, flags.promptFile), 'prompt file'), source: flags.promptFile };
  if (config.event_loop.prompt !== undefined)
    return { text: config.event_loop.prompt, source: 'event_loop.prompt' };
  if (config.event_loop.prompt_file !== undefined) {
    const file = config.event_loop.prompt_file;
    // `run --preset` without `ralph init`: a prompt file the workspace lacks comes from the preset.
    const own = resolve(cwd, file);
    const fromPreset =
      flags.preset === undefined ? undefined : presetFile(findPreset(flags.preset).name, file);
    const path = existsSync(own) || fromPreset === undefined || !existsSync(fromPreset) ? own : fromPreset;
    return {
      text: readPrompt(path, 'event_loop.prompt_file'),
      source: path === own ? file : `${file} (preset ${flags.preset})`,
    };
  }
  const fallback = resolve(cwd, 'PROMPT.md');
  if (existsSync(fallback)) return { text: readPrompt(fallback, 'prompt file'), source: 'PROMPT.md' };
  throw new UsageError(
    'no prompt: pass -p "text" or -P FILE, set event_loop.prompt_file in ralph.yml, or create PROMPT.md',
  );
}

export function resolveRun(cwd: string, flags: RunFlags, env: NodeJS.ProcessEnv = process.env): ResolvedRun {
  const layers = configLayers(cwd, env, flags);
  const configFile = layers.find((l) => l.kind === 'project')?.file;
  // RALPH_AGENT picks the agent (seed 002) over ralph.yml; -b and --set still win.
  const agentEnv = env.RALPH_AGENT?.trim();
  const envOverrides = agentEnv
    ? [{ path: ['cli', 'backend'], value: agentEnv, source: `RALPH_AGENT=${agentEnv}` }]
    : [];
  const loaded = loadConfig({
    layers,
    cwd,
    overrides: [...envOverrides, ...overridesFromFlags(flags)],
    checks: configChecks(cwd, env),
  });
  const config = withAutoBackend(withoutOtherBackendSettings(loaded, flags), cwd, env);
  const prompt = resolvePrompt(cwd, flags, config);
  if (prompt.text.trim().length === 0) throw new UsageError(`the prompt (${prompt.source}) is empty`);
  return {
    config,
    configFile,
    prompt: prompt.text,
    promptSource: prompt.source,
    backend: resolveBackend(config.cli.backend, config),
  };
}

/**
 * `-b` or `RALPH_AGENT` naming another backend than the config files do: the files' `cli.command`,
 * `cli.args` and `cli.model` were written for their backend (`custom` with `./agent.sh`), so the
 * chosen one runs its own executable with its own flags. What `--set` gives on the same command
 * line stays.
 */
function withoutOtherBackendSettings(loaded: LoadedConfig, flags: RunFlags): RalphConfig {
  const { config } = loaded;
  const cliOf = (raw: Record<string, unknown>) =>
    typeof raw.cli === 'object' && raw.cli !== null ? (raw.cli as Record<string, unknown>) : {};
  const fileBackend = loaded.layers.map((l) => cliOf(l.raw).backend).findLast((b) => b !== undefined);
  if (typeof fileBackend !== 'string' || fileBackend === 'auto' || fileBackend === config.cli.backend)
    return config;
  const set = new Set((flags.set ?? []).map((s) => parseSetOverride(s).path.join('.')));
  return {
    ...config,
    cli: {
      ...config.cli,
      command: set.has('cli.command') ? config.cli.command : undefined,
      args: set.has('cli.args') ? config.cli.args : [],
      model: set.has('cli.model') ? config.cli.model : undefined,
    },
  };
}

/** The checks every command that loads ralph.yml runs beyond the schema: what the chosen backends can honour. */
export function configChecks(cwd: string, env: NodeJS.ProcessEnv) {
  return [(config: RalphConfig) => backendCapabilityIssues(config, pickAutoBackend(env, cwd))];
}

/** `cli.backend: auto` becomes the first agent CLI installed on PATH (see AUTO_ORDER). */
export function withAutoBackend(config: RalphConfig, cwd: string, env: NodeJS.ProcessEnv): RalphConfig {
  if (config.cli.backend !== 'auto') return config;
  const picked = pickAutoBackend(env, cwd);
  if (!picked) return config; // resolveBackend explains what to install or set
  return { ...config, cli: { ...config.cli, backend: picked } };
}
