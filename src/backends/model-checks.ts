import type { ConfigCheckIssue } from '../config/load-config.ts';
import type { BackendName, RalphConfig } from '../config/schema.ts';
import type { BackendDefinition } from './definition.ts';

/** Names the backends that take a model, for a message that says which to use instead. */
function takers(definitions: readonly BackendDefinition[]): string {
  return definitions
    .filter((d) => d.modelFlag !== undefined)
    .map((d) => d.name)
    .join(', ');
}

/**
 * Model keys a config cannot honour (docs/concepts/models.md): `cli.model` together with
 * `cli.models`, and a model (`cli.model`) or a model ladder (`cli.models`, `hats.<hat>.models`) for a
 * backend whose CLI takes no model (its definition has no `modelFlag`: `custom`), named with the key
 * and the backend. `auto` is judged as the backend it would pick (`autoPick`); unresolved, it is left
 * to resolveBackend.
 */
export function modelKeyIssues(
  config: RalphConfig,
  definitions: readonly BackendDefinition[],
  autoPick?: BackendName,
): ConfigCheckIssue[] {
  const issues: ConfigCheckIssue[] = [];
  const flagOf = (name: BackendName) => definitions.find((d) => d.name === name)?.modelFlag;
  const judged = (name: BackendName): BackendName => (name === 'auto' ? (autoPick ?? 'auto') : name);
  if (config.cli.model !== undefined && config.cli.models !== undefined)
    issues.push({
      path: ['cli', 'models'],
      message:
        'cli.model and cli.models are both set: cli.model is one model for every iteration, cli.models a ladder from cheap to strong; keep one (a single-model ladder is `models: [name]`)',
    });
  const loop = judged(config.cli.backend);
  const loopTakesNoModel = loop !== 'auto' && flagOf(loop) === undefined;
  if (config.cli.model !== undefined && loopTakesNoModel)
    issues.push({
      path: ['cli', 'model'],
      message: `backend ${loop} takes no model (its CLI has no model flag), so cli.model cannot be honoured; pass the model to the command in cli.args (e.g. args: ["--model", "${config.cli.model}"]), or remove cli.model`,
    });
  if (config.cli.models !== undefined && loopTakesNoModel)
    issues.push({
      path: ['cli', 'models'],
      message: `backend ${loop} takes no model (its CLI has no model flag), so cli.models cannot be honoured; use a backend that takes one (${takers(definitions)}), or remove cli.models`,
    });
  for (const [id, hat] of Object.entries(config.hats)) {
    if (hat.models === undefined) continue;
    const name = judged(hat.backend ?? config.cli.backend);
    if (name === 'auto' || flagOf(name) !== undefined) continue;
    issues.push({
      path: ['hats', id, 'models'],
      message: `backend ${name} takes no model (its CLI has no model flag), so hats.${id}.models cannot be honoured; run hat "${id}" on a backend that takes one (${takers(definitions)}), or remove hats.${id}.models`,
    });
  }
  return issues;
}
