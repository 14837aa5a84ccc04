import { locatedIssue } from '../../config/config-issues.ts';
import type { LoadedConfig } from '../../config/load-config.ts';
import { type HooksCheck, hookProblems } from './check-hooks.ts';

// `ralph hooks validate`: the machine checks located in the file that sets each hook (YAML and
// the schema's issue locator), kept apart from check-hooks.ts so the run's start loads neither.

/**
 * The checks of `hooks:` that need the machine (ralph-orchestrator's `ralph hooks validate`): each
 * command resolves to an executable from its cwd (and its env's PATH), each cwd is a directory,
 * names are unique per phase-event, and no timeout is longer than the run may last.
 */
export function checkHooks(loaded: LoadedConfig, workspace: string, env: NodeJS.ProcessEnv): HooksCheck {
  const doc = loaded.layers.filter((l) => l.raw.hooks !== undefined).at(-1)?.doc;
  const found = hookProblems(loaded.config, workspace, env);
  const problems = found.map(({ path, message, ...more }) => ({
    ...locatedIssue(['hooks', 'events', ...path], message, () => doc, loaded.overrides),
    ...more,
  }));
  const hooks = Object.values(loaded.config.hooks.events).reduce((n, list) => n + (list?.length ?? 0), 0);
  return { enabled: loaded.config.hooks.enabled, hooks, problems };
}
