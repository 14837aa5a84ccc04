import { join, resolve } from 'node:path';
import type { Backend } from '../../backends/types.ts';
import type { RalphConfig } from '../../config/schema.ts';
import type { Skill } from '../../skills/skill-registry.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import type { LoopState } from '../../state/loop-state.ts';
import { userMemoriesFile } from '../../state/memories/user-memories.ts';
import { ralphPaths } from '../../state/paths.ts';
import { progressAfterArchive } from '../../workflows/progress-archive.ts';
import type { StartMode } from '../context/run-options.ts';
import { runRedactor } from '../context/run-redactor.ts';
import { fallbackInForce } from '../iteration/backend-fallback.ts';
import { externalEventsSince } from '../iteration/collect-events.ts';
import {
  type IterationPlan,
  type PlanState,
  planIteration,
  type WorkspaceReads,
  workspaceReads,
} from '../iteration/plan-iteration.ts';
import { unreadGuidance } from '../steering/control-inbox.ts';
import {
  checklistContextBlock,
  currentMilestoneTitle,
  readChecklist,
} from '../workflow-steps/checklist-view.ts';
import { initialEvents } from './loop.ts';
import { carriedToNewRun } from './run-setup.ts';
import { readPreviousState, resumes } from './start-mode.ts';

/** What `runLoop` would be started with. */
export interface FirstIterationInput {
  workspace: string;
  config: RalphConfig;
  prompt: string;
  backend: Backend;
  mode: StartMode;
  extraArgs: readonly string[];
  /** The clock (epoch ms) that decides whether a `cli.fallback` is still in force. */
  now?: number | undefined;
  /** The environment the loop would run in (where the user's memories are). */
  env: NodeJS.ProcessEnv;
  /** The skills the prompt lists, as `loadSkills(config.skills, workspace)` reads them; absent: none. */
  skills?: readonly Skill[] | undefined;
}

/**
 * Plans the first iteration `runLoop` would run, touching nothing (`ralph run --dry-run`): the state
 * a new run starts from (or the resumed run's), the guidance `ralph tell` queued before it, Ralph's
 * own scratchpad as a new run clears it. The plan is planIteration's, the loop's own.
 */
export function planFirstIteration(input: FirstIterationInput): IterationPlan {
  const { workspace, config } = input;
  const paths = ralphPaths(workspace);
  // A dry run touches nothing: a damaged state.json that --fresh would set aside stays where it is.
  const previous = readPreviousState(paths.state, input.mode, 'leave');
  const resumed = resumes(previous, input.mode) ? previous : undefined;
  const start = resumed
    ? resumedState(workspace, resumed, runRedactor(input.env, config))
    : newRunState(workspace, config, previous);
  const userMemories = userMemoriesFile(input.env);
  const reads = archivedReads(
    input,
    workspaceReads(workspace, config, paths, userMemories),
    new Date(input.now ?? Date.now()),
  );
  return planIteration(
    {
      config,
      prompt: input.prompt,
      workspace,
      paths,
      state: {
        ...start.state,
        // What `ralph tell` said before the session starts is in its first prompt (consumeControl).
        guidance: [...(start.state.guidance ?? []), ...unreadGuidance(paths.inbox, start.control)],
      },
      number: start.number,
      maxIterations: config.event_loop.max_iterations,
      backend: input.backend,
      extraArgs: input.extraArgs,
      fallback: resumed ? fallbackInForce(resumed, config, input.now ?? Date.now()) : undefined,
      userMemories,
      skills: input.skills,
    },
    resumed
      ? reads
      : {
          ...reads,
          // A new run starts with Ralph's own scratchpad cleared (prepareRun); the user's stays.
          context: (hat) => {
            const context = reads.context(hat);
            return context.scratchpadOwned ? { ...context, scratchpad: null } : context;
          },
        },
  );
}

interface StartingPoint {
  state: PlanState;
  control: LoopState['control'];
  number: number;
}

/** A new run: the starting event, what it takes over, and the checklist's current milestone. */
function newRunState(workspace: string, config: RalphConfig, previous: LoopState | undefined): StartingPoint {
  const carried = carriedToNewRun(previous);
  const startMilestone = config.completion.checklist
    ? currentMilestoneTitle(readChecklist(workspace, config, null))
    : undefined;
  return {
    state: {
      pending_events: initialEvents(config),
      hat_activations: {},
      guidance: carried.guidance,
      start_milestone: startMilestone,
    },
    control: carried.control,
    number: 1,
  };
}

/** `--resume`: the run's own state, plus what `ralph emit` published from outside since it stopped. */
function resumedState(workspace: string, state: LoopState, redact: (text: string) => string): StartingPoint {
  // Redacted as the loop reads them in, so the prompt is the one iteration 1 gets.
  const external = externalEventsSince(join(workspace, state.events_file), state, redact, false);
  return {
    state: { ...state, pending_events: [...state.pending_events, ...external.published] },
    control: state.control,
    number: state.current?.number ?? state.iterations + 1,
  };
}

/**
 * The reads of a workspace whose PROGRESS.md archiving (`progress.archive_after_days`) has not run
 * yet: a journal that is the progress file reads as it will once the first iteration archived it.
 */
function archivedReads(input: FirstIterationInput, reads: WorkspaceReads, now: Date): WorkspaceReads {
  const { workspace, config } = input;
  const days = config.progress.archive_after_days;
  if (days <= 0) return reads;
  const progressFile = resolve(workspace, config.progress.file);
  const readJournal = (path: string): string | undefined => {
    const text = readOptional(path, 'absent');
    return text !== undefined && path === progressFile
      ? progressAfterArchive(path, text, days, now).next
      : text;
  };
  return {
    ...reads,
    checklistBlock: (view, number, maxIterations, promise) =>
      checklistContextBlock(workspace, config, view, number, maxIterations, promise, readJournal),
  };
}
