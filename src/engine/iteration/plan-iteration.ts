import { resolveBackend } from '../../backends/registry.ts';
import type { AgentInvocation, Backend } from '../../backends/types.ts';
import type { BackendName, HatConfig, RalphConfig } from '../../config/schema.ts';
import { assemblePrompt, type PromptInput } from '../../routing/assemble-prompt.ts';
import type { PromptSkill } from '../../routing/skills-section.ts';
import { visibleSkills } from '../../skills/skill-dirs.ts';
import type { Skill } from '../../skills/skill-registry.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RalphPaths } from '../../state/paths.ts';
import { readWorkspaceContext, type WorkspaceContext } from '../context/workspace-context.ts';
import { checklistCondition } from '../decide/completion.ts';
import { reviewBlock } from '../gates/review-gate.ts';
import { metricBlock } from '../metric/metric-prompt.ts';
import { reposBlock } from '../readiness/repo-set.ts';
import {
  type ChecklistView,
  checklistContextBlock,
  readChecklist,
} from '../workflow-steps/checklist-view.ts';
import { agentInvocation, type IterationPrompt, type IterationRoute, routeFor } from './iteration-prompt.ts';
import { ladderScope, ladderStep } from './model-rung.ts';
import { planWave, type WaveMember, type WavePlan, waveBlock } from './wave/wave-plan.ts';

/** Characters of the scratchpad's newest part put in the prompt. */
export const SCRATCHPAD_BUDGET = 6000;

/** What of the run's state an iteration's route and prompt depend on. */
export type PlanState = Pick<
  LoopState,
  | 'pending_events'
  | 'hat_activations'
  | 'guidance'
  | 'review'
  | 'tdd'
  | 'feedback'
  | 'start_milestone'
  | 'metric'
  | 'ladder'
>;

/** Everything an iteration is planned from besides what it reads from the workspace. */
export interface IterationPlanInput {
  config: RalphConfig;
  /** The user's prompt (PROMPT.md, -p text). */
  prompt: string;
  workspace: string;
  paths: RalphPaths;
  state: PlanState;
  number: number;
  maxIterations: number;
  /** The loop's backend. */
  backend: Backend;
  /** The agent arguments given after `--`. */
  extraArgs: readonly string[];
  /** cli.fallback: the backend in force while the loop backend's usage limit lasts. */
  fallback?: BackendName | undefined;
  /** The user's memories file (`scope: user`, userMemoriesFile of the run's environment). */
  userMemories: string;
  /** The skills of `skills.dirs` as loadSkills read them for this iteration; absent: none. */
  skills?: readonly Skill[] | undefined;
}

/** What an iteration reads from the workspace (files change between iterations): the injected effects. */
export interface WorkspaceReads {
  /** Scratchpad, memories and tasks, as the active hat sees them. */
  context(hat: HatConfig | null): WorkspaceContext;
  /** The design document of a checklist run, or undefined. */
  checklist(startMilestone: string | null): ChecklistView | undefined;
  /** The context block that starts a checklist run's prompt (it reads the journal). */
  checklistBlock(view: ChecklistView, number: number, maxIterations: number, promise: string | null): string;
}

/** What an iteration receives: its route (hat, backend), its prompt and its agent command. */
export interface IterationPlan extends IterationPrompt {
  route: IterationRoute;
  invocation: AgentInvocation;
  /** `hats.<hat>.concurrency`: the wave this iteration runs, each member with its own prompt and command. */
  wave?: PlannedWave | undefined;
}

/** A wave as planned: its plan, and each member's prompt (its one event) and agent command. */
export interface PlannedWave extends WavePlan {
  runs: (WaveMember & { prompt: string; invocation: AgentInvocation })[];
}

/** The workspace's files as they stand on disk. */
export function workspaceReads(
  workspace: string,
  config: RalphConfig,
  paths: RalphPaths,
  userMemories: string,
): WorkspaceReads {
  return {
    context: (hat) => readWorkspaceContext(config, paths, userMemories, hat),
    checklist: (startMilestone) => readChecklist(workspace, config, startMilestone),
    checklistBlock: (view, number, maxIterations, promise) =>
      checklistContextBlock(workspace, config, view, number, maxIterations, promise),
  };
}

/**
 * Plans one iteration: routes the pending events to a hat, assembles the prompt and builds the
 * agent command. The one place both come from, for the loop and for `ralph run --dry-run`, so a
 * dry run shows byte for byte what the iteration receives. Pure but for `reads`.
 */
export function planIteration(
  input: IterationPlanInput,
  reads: WorkspaceReads = workspaceReads(input.workspace, input.config, input.paths, input.userMemories),
): IterationPlan {
  const { config, state } = input;
  const routed = routeFor(config, state, input.backend, input.fallback);
  const context = reads.context(routed.hat);
  const view = reads.checklist(state.start_milestone ?? null);
  const route = onLadder(config, state, routed, ladderScope(view, context.focusTask));
  const promise = config.completion.promise ?? config.event_loop.completion_promise;
  const checklist = view
    ? reads.checklistBlock(
        view,
        input.number,
        input.maxIterations,
        checklistCondition(config) === 'promise' ? promise : null,
      )
    : '';
  const contextBlock = [
    reposBlock(config),
    checklist,
    humanBlock(state),
    reviewBlock({ state, config }),
    state.tdd?.report_feedback ?? '',
    metricBlock(config.metric, state.metric),
    state.feedback ? `## Last iteration\n${state.feedback}` : '',
  ]
    .filter((t) => t.length > 0)
    .join('\n\n');
  const promptFor = (events: PromptInput['events'], head: string) =>
    assemblePrompt({
      context: [head, contextBlock].filter((t) => t.length > 0).join('\n\n') || null,
      base: input.prompt,
      completionPromise: promise,
      ...configPromptParts(config, route.hatId, route.hat),
      events,
      scratchpad: context.scratchpad,
      scratchpadLabel: context.scratchpadLabel,
      scratchpadBudget: SCRATCHPAD_BUDGET,
      memories: context.memories,
      readyTasks: context.readyTasks,
      skills: visibleSkills(input.skills ?? [], route.hatId, route.backend.name).map(promptSkill),
    });
  const invocationFor = (prompt: string) =>
    agentInvocation(route, {
      prompt,
      config,
      workspace: input.workspace,
      runtimeDir: input.paths.dir,
      extraArgs: input.extraArgs,
    });
  const prompt = promptFor(route.selection.consumed, '');
  const invocation = invocationFor(prompt);
  const wavePlan = planWave(config, route.hatId, route.selection.consumed);
  const wave = wavePlan && {
    ...wavePlan,
    runs: wavePlan.members.map((m) => {
      const own = promptFor([m.event], waveBlock(m, wavePlan.members.length, route.hat?.publishes ?? []));
      return { ...m, prompt: own, invocation: invocationFor(own) };
    }),
  };
  return {
    route,
    prompt,
    invocation,
    ...(wave ? { wave } : {}),
    view,
    scratchpad: context.scratchpad,
    guidance: (state.guidance ?? []).map((g) => g.id),
  };
}

/**
 * The route on its model ladder's rung (`cli.models`, `hats.<hat>.models`): the same backend
 * started with that model. A `cli.fallback` backend runs its own default.
 */
function onLadder(
  config: RalphConfig,
  state: PlanState,
  route: IterationRoute,
  scope: string,
): IterationRoute {
  if (route.fallbackFrom) return route;
  const step = ladderStep(config, route.hatId, route.hat, state, scope);
  if (!step) return route;
  const name = route.backend.name as BackendName;
  return { ...route, backend: resolveBackend(name, config, route.hat?.command, step.model), ladder: step };
}

/** A skill as the prompt lists it: its text too when the config injects it whole. */
function promptSkill(skill: Skill): PromptSkill {
  return {
    name: skill.name,
    description: skill.description,
    text: skill.autoInject ? skill.body : undefined,
  };
}

/** What a human said for this iteration (`ralph tell`, answers, rejected approvals), or ''. */
function humanBlock(state: PlanState): string {
  const queued = state.guidance ?? [];
  if (queued.length === 0) return '';
  return `## From a human (follow this)\n${queued.map((g) => `- ${g.text.replace(/\n/g, '\n  ')}`).join('\n')}`;
}

/** The parts of a prompt the config and the active hat give. */
function configPromptParts(
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
