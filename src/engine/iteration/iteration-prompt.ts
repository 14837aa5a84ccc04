import { usesLoopSettings } from '../../backends/backend-settings.ts';
import { resolveBackend } from '../../backends/registry.ts';
import type { AgentInvocation, Backend } from '../../backends/types.ts';
import type { BackendName, HatConfig, RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { type HatSelection, selectHat } from '../../routing/select-hat.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import type { ChecklistView } from '../workflow-steps/checklist-view.ts';
import type { LadderStep } from './model-rung.ts';

/** The hat an iteration runs (null in solo mode), and the backend it runs on. */
export interface IterationRoute {
  selection: HatSelection;
  hatId: string | null;
  hat: HatConfig | null;
  backend: Backend;
  /** The hat's own agent arguments, put before the ones given after `--`. */
  hatArgs: readonly string[];
  /** cli.fallback: the backend this iteration would have run on (parked on a usage limit). */
  fallbackFrom?: string | undefined;
  /** A model ladder (`cli.models`): the model this iteration runs on and why. */
  ladder?: LadderStep | undefined;
}

export interface IterationPrompt {
  prompt: string;
  /** The checklist as it stood when the prompt was assembled, if the run has one. */
  view: ChecklistView | undefined;
  scratchpad: string | null;
  /** Ids of the human guidance, answers and rejections the prompt carries. */
  guidance: string[];
}

/**
 * Routes the pending events to a hat (pure): the hat, the backend it runs on (`cli.fallback` while
 * the loop backend's usage limit lasts) and its own agent arguments.
 */
export function routeFor(
  config: RalphConfig,
  state: Pick<LoopState, 'pending_events' | 'hat_activations'>,
  loopBackend: Backend,
  fallback: BackendName | undefined,
): IterationRoute {
  const selection = selectHat(config.hats, state.pending_events, { activations: state.hat_activations });
  const hat = selection.hat;
  const routed = hatBackend(config, hat, loopBackend);
  return {
    selection,
    hatId: selection.hatId,
    hat,
    ...(fallback
      ? { backend: resolveBackend(fallback, config), hatArgs: [], fallbackFrom: routed.backend.name }
      : routed),
  };
}

/** The loop's side of a route: `<hat>.exhausted` for hats past max_activations, dropped events said. */
export function announceRoute(ctx: RunContext, number: number, selection: HatSelection): void {
  for (const hatId of selection.exhausted)
    ctx.publish(
      { topic: `${hatId}.exhausted`, payload: null, source: 'max_activations', iteration: number },
      hatId,
    );
  // Ralph's own informational events (gate results, default_publishes) may well have no hat.
  const droppedFromAgent = selection.unmatched.filter((e) => ['agent', 'tag', 'external'].includes(e.source));
  if (droppedFromAgent.length > 0 && ctx.hatsMode) {
    ctx.emit({
      type: 'notice',
      level: 'info',
      message: `no hat triggers on ${droppedFromAgent.map((e) => e.topic).join(', ')}; dropped`,
    });
  }
}

/**
 * The backend a hat runs on (its own `backend`, else the loop's; its own `command` replaces the
 * executable) and its own agent arguments. A hat on another backend than the loop's runs that
 * CLI's own executable: cli.command, cli.args and cli.model are the loop backend's (resolveBackend).
 */
export function hatBackend(
  config: RalphConfig,
  hat: HatConfig | null,
  loopBackend: Backend,
): Pick<IterationRoute, 'backend' | 'hatArgs'> {
  const name = hat?.backend ?? (loopBackend.name as BackendName);
  const own = hat?.backend !== undefined || hat?.command !== undefined;
  return {
    backend: own ? resolveBackend(name, config, hat?.command) : loopBackend,
    hatArgs: hat?.args ?? hat?.backend_args ?? [],
  };
}

/** The keys that chose a route's executable, for a message that says what to fix. */
export function commandKeys(route: Pick<IterationRoute, 'hatId' | 'hat' | 'fallbackFrom'>): string {
  if (route.fallbackFrom) return 'cli.fallback';
  const { hatId, hat } = route;
  if (hatId && (hat?.backend !== undefined || hat?.command !== undefined))
    return `hats.${hatId}.command / hats.${hatId}.backend`;
  return 'cli.command / cli.backend';
}

/**
 * The agent command of one iteration: the backend's invocation with the hat's arguments first, and
 * the hat's `disallowed_tools` refused the backend's own way (validated at load: every backend that
 * gets here can), with the `rules.deny` paths its CLI can refuse itself (claude). Shared by the loop
 * and `run --dry-run`, so the dry run shows the real command.
 */
export function agentInvocation(
  route: Pick<IterationRoute, 'backend' | 'hat' | 'hatArgs'>,
  opts: {
    prompt: string;
    config: RalphConfig;
    workspace: string;
    runtimeDir: string;
    extraArgs: readonly string[];
  },
): AgentInvocation {
  const { backend, hat } = route;
  // The arguments after `--` are the loop backend's, like cli.args.
  const loopArgs = usesLoopSettings(backend.name, opts.config) ? opts.extraArgs : [];
  const invocation = backend.buildInvocation({
    prompt: opts.prompt,
    config: opts.config,
    workspace: opts.workspace,
    extraArgs: [...route.hatArgs, ...loopArgs],
  });
  const hatTools = hat?.disallowed_tools ?? [];
  if (hatTools.length > 0 && !backend.denyTools)
    throw new RalphError(
      'config_invalid',
      `backend ${backend.name} cannot refuse tools, so disallowed_tools cannot be honoured; use a backend that can, or remove the key`,
    );
  // One list, one flag: the hat's tools and the `rules.deny` paths the CLI can refuse itself.
  const pathTools = backend.pathDenyTools?.(opts.config.rules?.deny ?? [], opts.workspace) ?? [];
  const tools = [...new Set([...hatTools, ...pathTools])];
  if (tools.length === 0 || !backend.denyTools) return invocation;
  return backend.denyTools(invocation, { tools, runtimeDir: opts.runtimeDir });
}
