import type { ExitCodeValue } from '../../errors.ts';
import { readGitHead } from '../../git/head.ts';
import type { StopReason } from '../../observe/events.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { consumeControl } from '../human/control-inbox.ts';
import { markerReached } from '../verify/completion-marker.ts';
import { currentMilestoneTitle, readChecklist } from '../workflows/checklist-view.ts';
import { checkTddStateAtStart, freshTddBook } from '../workflows/tdd-loop.ts';
import type { PreparedRun } from './run-setup.ts';

/**
 * Announces the run (`loop.started`, setup notices, the starting events) and checks what it starts
 * from; returns a Stop when there is nothing to do or the TDD state is unusable.
 */
export function startRun(ctx: RunContext, prepared: PreparedRun, logFile: string): Stop | undefined {
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
  for (const message of prepared.notices) emit({ type: 'notice', level: 'info', message });
  // Guidance sent before the run started goes to its first prompt; older stops and pauses do not apply.
  consumeControl(ctx, { atStart: true });
  if (!prepared.resumed) for (const e of state.pending_events) ctx.publish(e, null);
  // The last iteration decided to stop, and Ralph died before it could: end the run the same way,
  // without another agent call.
  const decided = prepared.resumed ? state.pending_stop : null;
  if (decided)
    return {
      reason: decided.reason as StopReason,
      message: decided.message,
      exitCode: decided.exit_code as ExitCodeValue,
    };
  const tddStop = checkTddAtStart(ctx);
  // Nothing to do outranks a TDD state problem.
  return checkChecklistAtStart(ctx, prepared.resumed) ?? tddStop;
}

/** TDD: a fresh book when there is none, and the state file's health before the first iteration. */
function checkTddAtStart(ctx: RunContext): Stop | undefined {
  const { config, state } = ctx;
  if (!config.tdd) return undefined;
  state.tdd ??= freshTddBook();
  const check = checkTddStateAtStart(ctx.options.workspace, config.tdd);
  if (check.warning) ctx.emit({ type: 'notice', level: 'warn', message: check.warning });
  return check.fatal ? stop('tdd_state', check.fatal) : undefined;
}

/**
 * Records the checklist and its starting milestone on a new run, warns when the loop cannot complete
 * by it, and stops when the checklist or the completion marker already says the work is done.
 */
function checkChecklistAtStart(ctx: RunContext, resumed: boolean): Stop | undefined {
  const { options, config, state, emit } = ctx;
  const startView = readChecklist(options.workspace, config, state.start_milestone ?? null);
  if (config.completion.checklist && !resumed) {
    state.checklist = config.completion.checklist;
    state.start_milestone = currentMilestoneTitle(startView);
    state.start_progress = startView
      ? { tasks_done: startView.progress.tasksDone, milestones_done: startView.progress.milestonesDone }
      : null;
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
    return stop(
      'completed',
      `every task in ${config.completion.checklist} is already checked: nothing to do`,
    );
  if (marker && markerReached(options.workspace, marker))
    return stop(
      'completed',
      `${marker.file} already contains ${marker.text}: nothing to do (remove the marker if work remains)`,
    );
  return undefined;
}
