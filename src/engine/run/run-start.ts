import { resolveBackend } from '../../backends/registry.ts';
import type { ExitCodeValue } from '../../errors.ts';
import { readGitHead } from '../../git/head.ts';
import { mayBeInRepository, readWorkTreeLayout, type WorkTreeLayout } from '../../git/work-tree-layout.ts';
import {
  type ConfigMark,
  configFiles,
  configMarkOf,
  readRepositoryConfig,
} from '../../git/workspace-guard/program-config.ts';
import type { ChecklistProgress, StopReason } from '../../observe/events.ts';
import { type LoopState, readLoopState } from '../../state/loop-state.ts';
import type { RalphPaths } from '../../state/paths.ts';
import { gitPreflight } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import type { RunLoopOptions, StartMode } from '../context/run-options.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { markerReached } from '../gates/completion-marker.ts';
import { refuseChangedGitConfig } from '../gates/git-config-gate.ts';
import { refuseChangedControlFiles } from '../gates/git-view.ts';
import { checkRollbackPossible } from '../gates/rollback.ts';
import { multiRepoPreflight } from '../readiness/repo-set.ts';
import { refuseUnusableSandbox } from '../readiness/sandbox-readiness.ts';
import { consumeControl } from '../steering/control-inbox.ts';
import { noteChecklistStart, readChecklist } from '../workflow-steps/checklist-view.ts';
import { checkTddStateAtStart, keepTddBook } from '../workflow-steps/tdd-loop.ts';
import { type PreparedRun, resumesUncommitted } from './run-setup.ts';
import { refuseUnaskedChecklistRestart } from './start-mode.ts';

/** What the checks before a run found: the work tree's layout (undefined outside git or with `repos`). */
export interface RunPreflight {
  /** `repos:` is set: each repository was checked instead of the workspace, which git leaves alone. */
  multiRepo: boolean;
  layout: WorkTreeLayout | undefined;
  /** The checklist's progress before the run (the no-progress rule's first mark). */
  startProgress: ChecklistProgress | undefined;
  /** The repository's program-running git config now (undefined outside git or with `repos`). */
  gitConfig?: ConfigMark | undefined;
}

/**
 * The checks made before any state is touched: an unasked checklist restart, an unusable backend
 * (the run's, its fallbacks', the reviewer's), a repository Ralph must not touch, a rollback that
 * cannot be made. Throws a RalphError saying what to fix.
 */
export async function preflightRun(
  options: RunLoopOptions,
  paths: RalphPaths,
  mode: StartMode,
): Promise<RunPreflight> {
  const { config, workspace } = options;
  // One `rev-parse` says whether the workspace is a repository and where git keeps what the
  // status cache watches: asked first, so git answers while the checks below run (repos: each
  // repository is checked instead of the workspace, which git leaves alone).
  const layoutAsked = config.repos ? undefined : readWorkTreeLayout(workspace);
  layoutAsked?.catch(() => undefined); // a failure surfaces where it is awaited
  // The program-running config as the run starts (read by git, which runs nothing for it), asked
  // beside rev-parse: `git config` needs no layout, only the files it watches do. Not outside git.
  const ownConfigAsked =
    layoutAsked && mayBeInRepository(workspace) ? readRepositoryConfig(workspace) : undefined;
  ownConfigAsked?.catch(() => undefined);
  // A checklist's earlier run is resumed or restarted only when the caller says which.
  refuseUnaskedChecklistRestart(paths, config.completion.checklist, mode);
  // Fail on an unusable backend, or a repository Ralph must not touch, before touching any state.
  options.backend.buildInvocation({
    prompt: options.prompt,
    config,
    workspace,
    extraArgs: options.extraArgs ?? [],
  });
  // The same for the backends a run may switch to: cli.fallback and the reviewer of gates.review.
  for (const name of [...config.cli.fallback, ...(config.gates.review ? [config.gates.review.backend] : [])])
    resolveBackend(name, config).buildInvocation({
      prompt: options.prompt,
      config,
      workspace,
      extraArgs: [],
    });
  // `sandbox: on` where bwrap cannot work, or `native` on a backend without one: no agent starts unsandboxed.
  await refuseUnusableSandbox(config);
  const startProgress = readChecklist(workspace, config, null)?.progress;
  const keepsUncommitted = resumesUncommitted(paths, mode);
  // Before the git status below: an earlier run's config must not have gained a program meanwhile.
  const earlierLayout = mode !== 'fresh' ? await layoutAsked?.catch(() => undefined) : undefined;
  if (earlierLayout) {
    // Git's control files first: a commondir the killed agent planted redirects the config check too.
    refuseChangedControlFiles(paths, earlierState(paths), earlierLayout);
    await refuseChangedGitConfig(workspace, earlierState(paths));
  }
  const multiRepo = await multiRepoPreflight(workspace, config, keepsUncommitted);
  // Its mark, beside the status: taken before any agent runs, saved in the run's first state.json.
  const configAsked = layoutAsked?.then(async (l) =>
    l && ownConfigAsked ? configMarkOf(await ownConfigAsked, configFiles(l)) : undefined,
  );
  configAsked?.catch(() => undefined);
  const [, layout, gitConfig] = multiRepo
    ? []
    : await Promise.all([
        gitPreflight(
          workspace,
          config,
          keepsUncommitted,
          layoutAsked?.then((l) => l !== undefined),
        ),
        layoutAsked,
        configAsked,
      ]);
  const inRepo = layout !== undefined;
  if (!multiRepo)
    checkRollbackPossible(config, inRepo, inRepo ? (readGitHead(workspace).commit ?? null) : null);
  return { multiRepo, layout, startProgress, gitConfig };
}

/** The earlier run's state, if any (a damaged one is reported when the run is prepared). */
function earlierState(paths: RalphPaths): LoopState | undefined {
  try {
    return readLoopState(paths.state);
  } catch {
    return undefined;
  }
}

/** What the start found: a stop decided before it, the marker's or checklist's claim of being done, a TDD problem. */
export interface StartCheck {
  /** The last iteration decided to stop and Ralph died before it could (--resume). */
  decided?: Stop | undefined;
  /** The marker or checklist already says done: the gates decide whether there is nothing to do. */
  doneClaim?: string | undefined;
  tddStop?: Stop | undefined;
}

/**
 * Announces the run (`loop.started`, setup notices, the starting events) and checks what it starts
 * from: a decided stop, a claim of being done (confirmDoneAtStart judges it), an unusable TDD state.
 */
export function startRun(ctx: RunContext, prepared: PreparedRun, logFile: string): StartCheck {
  const { options, state, emit } = ctx;
  const head = readGitHead(options.workspace);
  emit({
    type: 'loop.started',
    runId: state.run_id,
    resumed: prepared.resumed,
    workspace: options.workspace,
    backend: options.backend.name,
    maxIterations: ctx.limits.maxIterations,
    branch: head.branch,
    logFile,
    at: ctx.now(),
  });
  for (const message of ctx.options.configWarnings ?? []) emit({ type: 'notice', level: 'warn', message });
  for (const message of prepared.notices) emit({ type: 'notice', level: 'info', message });
  // Guidance sent before the run started goes to its first prompt; older stops and pauses do not apply.
  consumeControl(ctx, { atStart: true });
  if (!prepared.resumed) for (const e of state.pending_events) ctx.publish(e, null);
  // The last iteration decided to stop, and Ralph died before it could: end the run the same way,
  // without another agent call.
  const decided = prepared.resumed ? state.pending_stop : null;
  if (decided)
    return {
      decided: {
        reason: decided.reason as StopReason,
        message: decided.message,
        exitCode: decided.exit_code as ExitCodeValue,
      },
    };
  const tddStop = checkTddAtStart(ctx);
  return { doneClaim: checkChecklistAtStart(ctx, prepared.resumed), tddStop };
}

/** TDD: a fresh book when there is none, and the state file's health before the first iteration. */
function checkTddAtStart(ctx: RunContext): Stop | undefined {
  const { config, state } = ctx;
  if (!config.tdd) return undefined;
  keepTddBook(state);
  const check = checkTddStateAtStart(ctx.options.workspace, config.tdd);
  if (check.warning) ctx.emit({ type: 'notice', level: 'warn', message: check.warning });
  return check.fatal ? stop('tdd_state', check.fatal) : undefined;
}

/**
 * Records the checklist and its starting milestone on a new run, warns when the loop cannot complete
 * by it, and returns what the run would stop with when the checklist or the marker already says done.
 */
function checkChecklistAtStart(ctx: RunContext, resumed: boolean): string | undefined {
  const { options, config, state, emit } = ctx;
  const startView = readChecklist(options.workspace, config, state.start_milestone ?? null);
  if (config.completion.checklist && !resumed) {
    noteChecklistStart(state, config.completion.checklist, startView);
  }
  if (config.completion.checklist && !startView) {
    emit({
      type: 'notice',
      level: 'warn',
      message: `design document ${config.completion.checklist} not found; the loop cannot complete until it exists`,
    });
  } else if (startView && startView.progress.tasksTotal === 0) {
    emit({
      type: 'notice',
      level: 'warn',
      message: `${config.completion.checklist} has no \`- [ ]\` tasks; the loop cannot complete by checklist`,
    });
  }
  const marker = config.completion.marker;
  if (startView?.complete && ctx.condition !== 'promise')
    return `every task in ${config.completion.checklist} is already checked: nothing to do`;
  if (marker && markerReached(options.workspace, marker))
    return `${marker.file} already contains ${marker.text}: nothing to do (remove the marker if work remains)`;
  return undefined;
}
