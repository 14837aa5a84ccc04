import { resolveBackend } from '../../backends/registry.ts';
import type { Backend } from '../../backends/types.ts';
import type { HatConfig } from '../../config/schema.ts';
import { assemblePrompt } from '../../routing/prompt.ts';
import { type HatSelection, selectHat } from '../../routing/select-hat.ts';
import type { RunContext } from '../context/run-context.ts';
import {
  type ChecklistView,
  checklistContextBlock,
  readChecklist,
  writeIterationMarker,
} from '../steps/checklist-step.ts';
import { readWorkspaceContext } from '../steps/workspace-context.ts';

/** Characters of the scratchpad's newest part put in the prompt. */
const SCRATCHPAD_BUDGET = 6000;

/** The hat an iteration runs (null in solo mode), and the backend it runs on. */
export interface IterationRoute {
  selection: HatSelection;
  hatId: string | null;
  hat: HatConfig | null;
  backend: Backend;
  /** The hat's own agent arguments, put before the ones given after `--`. */
  hatArgs: readonly string[];
}

export interface IterationPrompt {
  prompt: string;
  /** The checklist as it stood when the prompt was assembled, if the run has one. */
  view: ChecklistView | undefined;
  scratchpad: string | null;
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
  return {
    selection,
    hatId: selection.hatId,
    hat,
    backend: hat?.backend ? resolveBackend(hat.backend, config) : ctx.options.backend,
    hatArgs: hat?.args ?? hat?.backend_args ?? [],
  };
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
    ctx.state.tdd?.report_feedback ?? '',
  ]
    .filter((t) => t.length > 0)
    .join('\n\n');
}

/** Assembles the iteration's prompt from the workspace as it stands (marks the journal first). */
export function assembleIterationPrompt(
  ctx: RunContext,
  number: number,
  route: IterationRoute,
): IterationPrompt {
  const { options, config, state } = ctx;
  const { hat, hatId } = route;
  const context = readWorkspaceContext(config, ctx.paths);
  writeIterationMarker(options.workspace, config, number, new Date(ctx.now()));
  const view = readChecklist(options.workspace, config, state.start_milestone ?? null);
  const contextBlock = contextBlockFor(ctx, number, view);
  const prompt = assemblePrompt({
    context: contextBlock || null,
    base: options.prompt,
    completionPromise: ctx.promise,
    hat:
      hat && hatId
        ? {
            id: hatId,
            name: hat.name ?? hatId,
            instructions: [hat.instructions, ...hat.extra_instructions].join('\n'),
            publishes: hat.publishes,
          }
        : null,
    hatsMode: ctx.hatsMode,
    events: route.selection.consumed,
    scratchpad: context.scratchpad,
    scratchpadBudget: SCRATCHPAD_BUDGET,
    memories: context.memories,
    readyTasks: context.readyTasks,
  });
  return { prompt, view, scratchpad: context.scratchpad };
}
