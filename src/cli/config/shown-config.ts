import { type ExplainedKey, explainConfig, sourceOf } from '../../config/config-explain.ts';
import type { LoadedConfig } from '../../config/load-config.ts';
import { maskSecrets, secretPaths, secretValues } from '../../observe/config-secrets.ts';
import { createRedactor } from '../../observe/redact.ts';

// What `ralph config show`, `ralph config explain` and `ralph run --dry-run` print of a config:
// every secret-bearing value (observe/config-secrets.ts) as `*** (from <layer file:line | flag>)`,
// and no source that spells one out (`--set KEY=VALUE` becomes `--set KEY`).

/**
 * What the run redacts (runRedactor's list): the environment's secrets, key shapes and the config's
 * own secret values, so a `cli.env` value repeated in `cli.args` or a gate command is masked too.
 */
export const shownRedactor = (env: NodeJS.ProcessEnv, config: unknown) =>
  createRedactor(env, secretValues(config, createRedactor(env)));

/** `config` (the loaded one, or the run's for a dry run) with its secrets masked. */
export function shownConfig<T>(loaded: LoadedConfig, env: NodeJS.ProcessEnv, config: T): T {
  return maskSecrets(config, shownRedactor(env, config), (path) => sourceOf(loaded, path, { value: false }));
}

/** `ralph config explain [key]`'s rows: the values masked, a secret's source without its value. */
export function shownExplain(loaded: LoadedConfig, env: NodeJS.ProcessEnv, key?: string): ExplainedKey[] {
  const secrets = secretPaths(loaded.config, shownRedactor(env, loaded.config)).map((p) => p.join('.'));
  const holdsSecret = (row: string) => secrets.some((s) => s === row || s.startsWith(`${row}.`));
  return explainConfig(loaded, key, shownConfig(loaded, env, loaded.config)).map((row) =>
    holdsSecret(row.path) ? { ...row, source: sourceOf(loaded, row.path.split('.'), { value: false }) } : row,
  );
}
