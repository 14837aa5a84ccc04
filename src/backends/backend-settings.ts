import type { RalphConfig } from '../config/schema.ts';

/**
 * Whether `name` is the loop's backend (`cli.backend`, as `-b`, `RALPH_AGENT` or `auto` resolved
 * it): only that backend runs with `cli.command`, `cli.args`, `cli.model`, `cli.models` and the arguments after
 * `--`. Those are one CLI's settings; another backend a run switches to (a hat's `backend`, a
 * `cli.fallback`, the `gates.review` reviewer) would be started as the wrong program, or with
 * flags it does not know.
 */
export function usesLoopSettings(name: string, config: RalphConfig): boolean {
  return name === config.cli.backend;
}

/**
 * The config backend `name` builds its command from: the loop's backend sees `cli` as written;
 * any other backend sees no `cli.command`, `cli.args`, `cli.model` or `cli.models`, so it runs its
 * own executable with its own flags. `command` (a hat's own `command`) replaces the executable of
 * either; `model` (a rung of a model ladder) replaces `cli.model` of either. The keys only `custom`
 * reads (`prompt_mode`, `prompt_flag`, `output_format`) and `cli.env` stay: they belong to no other CLI.
 */
export function configForBackend(
  name: string,
  config: RalphConfig,
  command?: string,
  model?: string,
): RalphConfig {
  const own = usesLoopSettings(name, config)
    ? command === undefined
      ? config
      : { ...config, cli: { ...config.cli, command } }
    : { ...config, cli: { ...config.cli, command, args: [], model: undefined, models: undefined } };
  return model === undefined ? own : { ...own, cli: { ...own.cli, model, models: undefined } };
}
