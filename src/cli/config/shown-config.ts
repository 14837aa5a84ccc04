import { sourceOf } from '../../config/config-explain.ts';
import type { LoadedConfig } from '../../config/load-config.ts';
import { maskSecrets } from '../../observe/config-secrets.ts';
import { createRedactor } from '../../observe/redact.ts';

/**
 * A config as `ralph config show`, `ralph config explain` and `ralph run --dry-run` print it: every
 * secret-bearing value (observe/config-secrets.ts) as `*** (from <layer file:line | flag>)`.
 * `config`: the one printed (default: the loaded one; a dry run prints the run's).
 */
export function shownConfig<T>(loaded: LoadedConfig, env: NodeJS.ProcessEnv, config: T): T {
  return maskSecrets(config, createRedactor(env), (path) => sourceOf(loaded, path));
}
