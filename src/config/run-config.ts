import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { linkToNowhere, RalphError, UsageError, whyUnreadable } from '../errors.ts';
import { type ConfigLayer, userConfigFile } from './config-layers.ts';
import type { LoadedConfig } from './load-config.ts';
import { hatsSourceFile } from './orchestrator/hats-source.ts';
import type { ConfigOverride } from './overrides.ts';
import { findPreset, presetFile } from './presets.ts';
import type { RalphConfig } from './schema.ts';

/** The prompt of a run: its text (`-p`), or a file to read (`-P`); none picks the config's or PROMPT.md. */
export type PromptChoice = { text: string } | { file: string };

/** Finds the project config: `configPath` (`-c`, must exist) or `ralph.yml` / `ralph.yaml` in the workspace. */
export function findConfigFile(cwd: string, configPath: string | undefined): string | undefined {
  if (configPath !== undefined) {
    const path = resolve(cwd, configPath);
    if (!existsSync(path)) {
      const link = linkToNowhere(path);
      throw new RalphError(
        'config_unreadable',
        `config file not found: ${configPath}${link ? ` (${link})` : ''}`,
      );
    }
    return path;
  }
  for (const name of ['ralph.yml', 'ralph.yaml']) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
    // A link to nowhere is a config the user meant to have: running on the defaults would hide it.
    const link = linkToNowhere(path);
    if (link) throw new RalphError('config_unreadable', `${path} is ${link}: fix the link or remove it`);
  }
  return undefined;
}

/**
 * The config files of a command, lowest first: the user config, the project file (`-c` or
 * ralph.yml), the preset of `--preset` and the hats source of `-H`.
 */
export function configLayers(
  cwd: string,
  env: NodeJS.ProcessEnv,
  files: { config?: string | undefined; preset?: string | undefined; hats?: string | undefined },
): ConfigLayer[] {
  const user = userConfigFile(env);
  const project = findConfigFile(cwd, files.config);
  const preset =
    files.preset === undefined ? undefined : presetFile(findPreset(files.preset).name, 'ralph.yml');
  const hats = files.hats === undefined ? undefined : hatsSourceFile(cwd, files.hats);
  return [
    ...(user ? [{ kind: 'user' as const, file: user }] : []),
    ...(project ? [{ kind: 'project' as const, file: project }] : []),
    ...(preset ? [{ kind: 'preset' as const, file: preset }] : []),
    ...(hats ? [{ kind: 'hats' as const, file: hats.file, builtin: hats.builtin }] : []),
  ];
}

/** `RALPH_AGENT` picks the agent (seed 002) over the config files; `--set` and `-b` still win. */
export function agentEnvOverrides(env: NodeJS.ProcessEnv): ConfigOverride[] {
  const agent = env.RALPH_AGENT?.trim();
  return agent ? [{ path: ['cli', 'backend'], value: agent, source: `RALPH_AGENT=${agent}` }] : [];
}

/** `-b NAME`: the agent backend over the files, `RALPH_AGENT` and `--set`. */
export function backendOverrides(backend: string | undefined): ConfigOverride[] {
  return backend === undefined
    ? []
    : [{ path: ['cli', 'backend'], value: backend, source: `--backend ${backend}` }];
}

/**
 * `-b` or `RALPH_AGENT` naming another backend than the config files do: the files' `cli.command`,
 * `cli.args`, `cli.model` and `cli.models` were written for their backend (`custom` with `./agent.sh`), so the
 * chosen one runs its own executable with its own flags. What an override sets (`--set`) stays.
 */
export function withoutOtherBackendSettings(
  loaded: LoadedConfig,
  overrides: readonly ConfigOverride[],
): RalphConfig {
  const { config } = loaded;
  const cliOf = (raw: Record<string, unknown>) =>
    typeof raw.cli === 'object' && raw.cli !== null ? (raw.cli as Record<string, unknown>) : {};
  const fileBackend = loaded.layers.map((l) => cliOf(l.raw).backend).findLast((b) => b !== undefined);
  if (typeof fileBackend !== 'string' || fileBackend === 'auto' || fileBackend === config.cli.backend)
    return config;
  const set = new Set(overrides.map((o) => o.path.join('.')));
  return {
    ...config,
    cli: {
      ...config.cli,
      command: set.has('cli.command') ? config.cli.command : undefined,
      args: set.has('cli.args') ? config.cli.args : [],
      model: set.has('cli.model') ? config.cli.model : undefined,
      models: set.has('cli.models') ? config.cli.models : undefined,
    },
  };
}

function readPrompt(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    throw new RalphError('prompt_unreadable', `cannot read ${what} ${path}: ${whyUnreadable(path, cause)}`, {
      cause,
    });
  }
}

/**
 * Picks the prompt: the given text (`-p`) or file (`-P`), then event_loop.prompt,
 * event_loop.prompt_file (from the preset when the workspace lacks it), then PROMPT.md.
 */
export function choosePrompt(
  cwd: string,
  choice: PromptChoice | undefined,
  config: RalphConfig,
  preset: string | undefined,
): { text: string; source: string } {
  const prompt = pickPrompt(cwd, choice, config, preset);
  if (prompt.text.trim().length === 0) throw new UsageError(`the prompt (${prompt.source}) is empty`);
  return prompt;
}

function pickPrompt(
  cwd: string,
  choice: PromptChoice | undefined,
  config: RalphConfig,
  preset: string | undefined,
): { text: string; source: string } {
  if (choice && 'text' in choice) return { text: choice.text, source: '-p' };
  if (choice) return { text: readPrompt(resolve(cwd, choice.file), 'prompt file'), source: choice.file };
  if (config.event_loop.prompt !== undefined)
    return { text: config.event_loop.prompt, source: 'event_loop.prompt' };
  if (config.event_loop.prompt_file !== undefined) {
    const file = config.event_loop.prompt_file;
    // `run --preset` without `ralph init`: a prompt file the workspace lacks comes from the preset.
    const own = resolve(cwd, file);
    const fromPreset = preset === undefined ? undefined : presetFile(findPreset(preset).name, file);
    const path = existsSync(own) || fromPreset === undefined || !existsSync(fromPreset) ? own : fromPreset;
    return {
      text: readPrompt(path, 'event_loop.prompt_file'),
      source: path === own ? file : `${file} (preset ${preset})`,
    };
  }
  const fallback = resolve(cwd, 'PROMPT.md');
  if (existsSync(fallback)) return { text: readPrompt(fallback, 'prompt file'), source: 'PROMPT.md' };
  throw new UsageError(
    'no prompt: pass -p "text" or -P FILE, set event_loop.prompt_file in ralph.yml, or create PROMPT.md',
  );
}
