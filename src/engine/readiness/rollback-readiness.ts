import type { RalphConfig } from '../../config/schema.ts';

/** Whether the run sets failed iterations aside (`gates.on_failure: rollback`). */
export function rollsBack(config: RalphConfig): boolean {
  return config.gates.on_failure === 'rollback';
}

/**
 * The setting that resets work trees to an earlier commit, as ralph.yml writes it (`gates.on_failure:
 * rollback`, `rules`, `metric`), or undefined when none does (pure).
 */
export function rollbackSetting(config: RalphConfig): string | undefined {
  return rollsBack(config)
    ? 'gates.on_failure: rollback'
    : config.rules
      ? 'rules'
      : config.metric
        ? 'metric'
        : undefined;
}

/**
 * Why `gates.on_failure: rollback` or `rules` cannot work here (nothing to roll back to), or
 * undefined (pure: `ralph doctor` reports it, `ralph run` refuses to start with it).
 */
export function rollbackRefusal(
  config: RalphConfig,
  inRepo: boolean,
  head: string | null,
): string | undefined {
  const key = rollbackSetting(config);
  if (!key) return undefined;
  if (!inRepo)
    return `${key} needs a git repository (rolled-back changes are kept as git refs): run \`git init\` and make a first commit, or remove ${key.split(':')[0]}`;
  if (head === null)
    return `${key} needs a commit to return to, and the repository has none yet: make a first commit, then run again`;
  return undefined;
}
