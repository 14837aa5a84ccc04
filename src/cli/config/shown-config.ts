import { type ExplainedKey, explainConfig, sourceOf } from '../../config/config-explain.ts';
import type { LoadedConfig } from '../../config/load-config.ts';
import { maskSecrets, secretPaths } from '../../observe/config-secrets.ts';
import { createRedactor } from '../../observe/redact.ts';

// What `ralph config show`, `ralph config explain` and `ralph run --dry-run` print of a config:
// every secret-bearing value (observe/config-secrets.ts) as `*** (from <layer file:line | flag>)`,
// and no source that spells one out (`--set KEY=VALUE` becomes `--set KEY`).

/** `config` (the loaded one, or the run's for a dry run) with its secrets masked. */
export function shownConfig<T>(loaded: LoadedConfig, env: NodeJS.ProcessEnv, config: T): T {
  return maskSecrets(config, createRedactor(env), (path) => sourceOf(loaded, path, { value: false }));
}

/** `ralph config explain [key]`'s rows: the values masked, a secret's source without its value. */
export function shownExplain(loaded: LoadedConfig, env: NodeJS.ProcessEnv, key?: string): ExplainedKey[] {
  const secrets = secretPaths(loaded.config, createRedactor(env)).map((p) => p.join('.'));
  const holdsSecret = (row: string) => secrets.some((s) => s === row || s.startsWith(`${row}.`));
  return explainConfig(loaded, key, shownConfig(loaded, env, loaded.config)).map((row) =>
    holdsSecret(row.path) ? { ...row, source: sourceOf(loaded, row.path.split('.'), { value: false }) } : row,
  );
}
