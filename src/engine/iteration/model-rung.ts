import type { HatConfig, RalphConfig } from '../../config/schema.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import {
  firstRung,
  type LadderOutcome,
  type LadderSpec,
  ladderFor,
  ladderKey,
  type ModelChoice,
  modelChoice,
  nextRung,
  withRung,
} from '../decide/model-ladder.ts';
import type { ChecklistView } from '../workflow-steps/checklist-view.ts';
import { currentMilestoneTitle } from '../workflow-steps/checklist-view.ts';

/** The model ladder's part of one iteration: the model it runs on, why, and where its rung is kept. */
export interface LadderStep extends ModelChoice {
  spec: LadderSpec;
  /** What the rung is for: `milestone:<title>`, `task:<id>` or `run`. */
  scope: string;
  /** The key of `state.ladder` the rung is kept under. */
  key: string;
}

/**
 * What a rung is kept for (pure): the checklist's current milestone, else the task being worked on
 * (in progress, else the first ready one), else the whole run.
 */
export function ladderScope(view: ChecklistView | undefined, focusTask: string | null | undefined): string {
  const milestone = currentMilestoneTitle(view);
  if (milestone) return `milestone:${milestone}`;
  return focusTask ? `task:${focusTask}` : 'run';
}

/** The ladder step of an iteration on `hat` (pure), or undefined when no ladder applies to it. */
export function ladderStep(
  config: Pick<RalphConfig, 'cli'>,
  hatId: string | null,
  hat: HatConfig | null,
  state: Pick<LoopState, 'ladder'>,
  scope: string,
): LadderStep | undefined {
  const spec = ladderFor(config, hatId, hat);
  if (!spec) return undefined;
  const key = ladderKey(spec, scope);
  return { ...modelChoice(spec, state.ladder?.[key], scope), spec, scope, key };
}

/**
 * Moves the ladder of a finished iteration's task (nextRung) and says so when the next iteration
 * runs on another model. Saved with the iteration's state, so `--resume` continues on that rung.
 */
export function climbLadder(ctx: RunContext, step: LadderStep | undefined, outcome: LadderOutcome): void {
  if (!step) return;
  const { state } = ctx;
  const before = state.ladder?.[step.key] ?? firstRung();
  const after = nextRung(step.spec, { ...before, rung: step.rung }, outcome);
  state.ladder = withRung(state.ladder ?? {}, step.key, after);
  if (after.rung !== step.rung)
    ctx.emit({
      type: 'notice',
      level: 'info',
      message: `model ladder (${step.spec.owner}.models, ${step.scope}): the next iteration runs on ${step.spec.models[after.rung]}, ${after.reason}`,
    });
}

/** Books what an iteration cost under the model it ran on (the summary's spend per model). */
export function bookModelSpend(
  state: LoopState,
  model: string | undefined,
  costUsd: number | undefined,
): void {
  if (model === undefined || costUsd === undefined) return;
  const spend = state.cost_by_model ?? {};
  spend[model] = (spend[model] ?? 0) + costUsd;
  state.cost_by_model = spend;
}
