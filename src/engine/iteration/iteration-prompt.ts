import { usesLoopSettings } from '../../backends/backend-settings.ts';
import { resolveBackend } from '../../backends/registry.ts';
import type { AgentInvocation, Backend } from '../../backends/types.ts';
import type { BackendName, HatConfig, RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { assemblePrompt, type PromptInput } from '../../routing/prompt.ts';
import { type HatSelection, selectHat } from '../../routing/select-hat.ts';
import type { RunContext } from '../context/run-context.ts';
import { readWorkspaceContext } from '../steps/workspace-context.ts';
import { reviewBlock } from '../verify/review-gate.ts';
import {
  type ChecklistView,
  checklistContextBlock,
  readChecklist,
  writeIterationMarker,
} from '../workflows/checklist-view.ts';
import { activeFallback } from './backend-fallback.ts';

/** Characters of the scratchpad's newest part put in the prompt. */
export const SCRATCHPAD_BUDGET = 6000;

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
}

export interface IterationPrompt {
  prompt: string;
  /** The checklist as it stood when the prompt was assembled, if the run has one. */
  view: ChecklistView | undefined;
  scratchpad: string | null;
  /** Ids of the human guidance, answers and rejections the prompt carries. */
  guidance: string[];
}

/** Routes the pending events to a hat; publishes `<hat>.exhausted` for hats past max_activations. */
export function routeIteration(ctx: RunContext, number: number): IterationRoute {
  const { config, state, emit } = ctx;
  const selection = selectHat(config.hats, state.pending_events, { activations: state.hat_activations });
  for (const hatId of selection.exhausted)
    ctx.publish(
      { topic: `${hatId}.exhausted`, payload: null, source: 'max_activations', iteration: number },
      hatId,
    );
  // Ralph's own informational events (gate results, default_publishes) may well have no hat.
  const droppedFromAgent = selection.unmatched.filter((e) => ['agent', 'tag', 'external'].includes(e.source));
  if (droppedFromAgent.length > 0 && ctx.hatsMode) {
    emit({
      type: 'notice',
      level: 'info',
      message: `no hat triggers on ${droppedFromAgent.map((e) => e.topic).join(', ')}; dropped`,
    });
  }
  const hat = selection.hat;
  const routed = hatBackend(config, hat, ctx.options.backend);
  const fallback = activeFallback(ctx);
  return {
    selection,
    hatId: selection.hatId,
    hat,
    ...(fallback
      ? { backend: resolveBackend(fallback, config), hatArgs: [], fallbackFrom: routed.backend.name }
      : routed),
  };
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
 * gets here can). Shared by the loop and `run --dry-run`, so the dry run shows the real command.
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
  const tools = hat?.disallowed_tools ?? [];
  if (tools.length === 0) return invocation;
  if (!backend.denyTools)
    throw new RalphError(
      'config_invalid',
      `backend ${backend.name} cannot refuse tools, so disallowed_tools cannot be honoured; use a backend that can, or remove the key`,
    );
  return backend.denyTools(invocation, { tools, runtimeDir: opts.runtimeDir });
}

/** The checklist context block and the TDD report feedback, or '' when there is neither. */
function contextBlockFor(ctx: RunContext, number: number, view: ChecklistView | undefined): string {
  const { options, config } = ctx;
  return [
    view
      ? checklistContextBlock(
          options.workspace,
          config,
          view,
          number,
          ctx.limits.maxIterations,
          ctx.condition === 'promise' ? ctx.promise : null,
        )
      : '',
    humanBlock(ctx),
    reviewBlock(ctx),
    ctx.state.tdd?.report_feedback ?? '',
    ctx.state.feedback ? `## Last iteration\n${ctx.state.feedback}` : '',
  ]
    .filter((t) => t.length > 0)
    .join('\n\n');
}

/** What a human said for this iteration (`ralph tell`, answers, rejected approvals), or ''. */
function humanBlock(ctx: RunContext): string {
  const queued = ctx.state.guidance ?? [];
  if (queued.length === 0) return '';
  return `## From a human (follow this)\n${queued.map((g) => `- ${g.text.replace(/\n/g, '\n  ')}`).join('\n')}`;
}

/** The parts of a prompt the config and the active hat give (shared by the loop and `run --dry-run`). */
export function configPromptParts(
  config: RalphConfig,
  hatId: string | null,
  hat: HatConfig | null,
): Pick<PromptInput, 'hat' | 'hatsMode' | 'guardrails' | 'eventMeta'> {
  return {
    hat:
      hat && hatId
        ? {
            id: hatId,
            name: hat.name ?? hatId,
            description: hat.description,
            instructions: [hat.instructions, ...hat.extra_instructions].join('\n'),
            publishes: hat.publishes,
          }
        : null,
    hatsMode: Object.keys(config.hats).length > 0,
    guardrails: config.core.guardrails,
    eventMeta: config.events,
  };
}

/** Assembles the iteration's prompt from the workspace as it stands (marks the journal first). */
export function assembleIterationPrompt(
  ctx: RunContext,
  number: number,
  route: IterationRoute,
): IterationPrompt {
  const { options, config, state } = ctx;
  const { hat, hatId } = route;
  const context = readWorkspaceContext(config, ctx.paths, hat);
  writeIterationMarker(options.workspace, config, number, new Date(ctx.now()));
  const view = readChecklist(options.workspace, config, state.start_milestone ?? null);
  const contextBlock = contextBlockFor(ctx, number, view);
  const prompt = assemblePrompt({
    context: contextBlock || null,
    base: options.prompt,
    completionPromise: ctx.promise,
    ...configPromptParts(config, hatId, hat),
    events: route.selection.consumed,
    scratchpad: context.scratchpad,
    scratchpadLabel: context.scratchpadLabel,
    scratchpadBudget: SCRATCHPAD_BUDGET,
    memories: context.memories,
    readyTasks: context.readyTasks,
  });
  return {
    prompt,
    view,
    scratchpad: context.scratchpad,
    guidance: (state.guidance ?? []).map((g) => g.id),
  };
}
