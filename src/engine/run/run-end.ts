import { FileSystemError, fileSystemError, RalphError } from '../../errors.ts';
import type { ChecklistProgress } from '../../observe/events.ts';
import type { Reporter } from '../../observe/reporter.ts';
import { holdStop, recordStop } from '../../state/loop-state/run-status.ts';
import type { MilestonePr } from '../../state/loop-state.ts';
import type { WorkspaceLock } from '../../state/workspace-lock.ts';
import type { RunContext } from '../context/run-context.ts';
import { noteElapsed } from '../context/spend-and-limits.ts';
import { nextStep, type Stop, stop } from '../decide/limits.ts';
import { postEndHooks, preEndHooks } from '../hooks/loop-hooks.ts';
import { readChecklist } from '../workflow-steps/checklist-view.ts';
import { type LoopSummary, laddered, summaryOf } from './loop-summary.ts';

/** What a run stopped by a file-system failure says to do once the cause is fixed. */
export const RESUME = 'then run `ralph run --resume`';

/** The error a user sees: a file-system failure named with how to go on, another RalphError as it is. */
export function userError(error: unknown): RalphError | undefined {
  return fileSystemError(error, { next: RESUME }) ?? (error instanceof RalphError ? error : undefined);
}

/** What a started run holds until it ends: what ending it saves, announces, closes and releases. */
export interface RunEnding {
  ctx: RunContext;
  /** In closing order (openRunReporters'). */
  reporters: readonly Reporter[];
  lock: WorkspaceLock;
  workingTree: { close(): void } | undefined;
  logFile: string;
  /** The session resumed an unfinished run (prepareRun's `resumedUnfinished`). */
  resumedUnfinished: boolean;
  /** The run's iteration count when this session began. */
  startIterations: number;
  /** A forced stop saved the run's end already (markForcedStop): it is not saved again. */
  forced?: boolean | undefined;
  /** Checklist progress before the run touched anything, for the end-of-run summary. */
  startProgress: ChecklistProgress | undefined;
}

/**
 * Ends a run the loop stopped (`final`) or an error cut short (`failed`): every step is tried, and
 * the first failure is what the caller gets (a full disk fails the final state write too; state.json
 * then keeps its last good content, still resumable). Resolves to the run's summary otherwise.
 */
export async function endRun(
  ending: RunEnding,
  final: Stop | undefined,
  failed: { error: unknown } | undefined,
): Promise<LoopSummary> {
  const { ctx, logFile } = ending;
  const { state } = ctx;
  let saved = false;
  const attempt = async (step: () => unknown) => {
    try {
      await step();
    } catch (error) {
      // Once the end is saved, a failure (the log's last line) does not undo it: nothing to resume.
      const next = saved ? `though the run itself had ended (${state.stop_reason}) and is saved` : RESUME;
      failed ??= { error: fileSystemError(error, { next }) ?? userError(error) ?? error };
    }
  };
  // Whatever an iteration cut short by an error left running goes with the run.
  await attempt(() => ctx.sweep({ runId: state.run_id }, Math.min(ctx.graceMs, 1000)));
  // A --resume that stops before finishing an iteration (a health check, a dirty tree) leaves
  // an unfinished run unfinished, and a file-system failure (a full disk) cuts a run short: the
  // next plain `ralph run` must not start over it.
  const stillUnfinished =
    (ending.resumedUnfinished && state.iterations === ending.startIterations) ||
    failed?.error instanceof FileSystemError;
  let end = final ?? stop('error', 'the loop ended unexpectedly');
  // Hooks of the end: not after Ctrl-C or a forced stop (the run must end now) nor for a lost lock.
  const hooks = !ending.lock.lostTo && !ending.forced && !ctx.options.signal?.aborted;
  if (hooks)
    await attempt(async () => {
      end = await preEndHooks(ctx, end);
    });
  // Another live loop holds the workspace now: state.json is its file, not this run's to write.
  if (!ending.lock.lostTo && !ending.forced)
    await attempt(() => {
      saveEnd(ctx, end, stillUnfinished);
      saved = true;
    });
  if (hooks && saved) await attempt(() => postEndHooks(ctx, end));
  await attempt(() => announceEnd(ctx, end, logFile, ending.startProgress));
  // The registry hears the end, the `stopped` notification is delivered (bounded: never hangs the
  // exit), the files are closed, then the caller's reporters.
  for (const reporter of ending.reporters) await attempt(() => reporter.close?.());
  await attempt(() => ending.workingTree?.close());
  await attempt(() => ending.lock.release());
  if (failed) throw failed.error;
  return summaryOf(state, end, ctx.options.workspace, logFile);
}

/** Saves the final state. */
function saveEnd(ctx: RunContext, end: Stop, stillUnfinished: boolean): void {
  const { state } = ctx;
  noteElapsed(state, ctx.elapsed());
  const status =
    end.reason === 'completed'
      ? 'completed'
      : end.reason === 'interrupted' || stillUnfinished
        ? 'interrupted'
        : 'stopped';
  // An error before the run could end as its last iteration decided: --resume ends it so.
  if (end.reason !== 'error') holdStop(state, null);
  recordStop(state, status, { ...end, message: ctx.redact(end.message) });
  ctx.persist();
}

/** Announces the end of the run (the summary, the log's last line). */
function announceEnd(
  ctx: RunContext,
  end: Stop,
  logFile: string,
  startProgress: ChecklistProgress | undefined,
): void {
  const { state } = ctx;
  ctx.emit({
    type: 'loop.finished',
    runId: state.run_id,
    stopReason: end.reason,
    message: state.stop_message ?? '',
    exitCode: end.exitCode,
    iterations: state.iterations,
    elapsedMs: state.elapsed_ms,
    tokens: state.tokens,
    costUsd: state.cost_usd,
    costByModel: laddered(state) ? { ...state.cost_by_model } : undefined,
    logFile,
    next: nextWithPullRequests(state.forge?.prs ?? [], nextStep(end.reason, ctx.limits)),
    progress: endProgress(ctx, startProgress),
    pullRequests: state.forge?.prs.length
      ? state.forge.prs.map((p) => ({
          number: p.number,
          url: p.url,
          milestone: p.milestone,
          status: p.status,
        }))
      : undefined,
  });
}

/** Ready pull requests come first in what to do next: "review and merge #12". */
function nextWithPullRequests(prs: readonly MilestonePr[], next: string | undefined): string | undefined {
  const ready = prs.filter((p) => p.status === 'ready').map((p) => `#${p.number}`);
  if (ready.length === 0) return next;
  const review = `review and merge ${ready.join(', ')}`;
  return next ? `${review}; ${next}` : review;
}

/** Checklist progress at the end of the run, with what this run completed. */
function endProgress(ctx: RunContext, startProgress: ChecklistProgress | undefined) {
  const end = readChecklist(ctx.options.workspace, ctx.config, ctx.state.start_milestone ?? null);
  if (!end) return undefined;
  // The whole run's start (kept across --resume), like the iteration count beside it in the summary.
  const start = ctx.state.start_progress ?? {
    tasks_done: (startProgress ?? end.progress).tasksDone,
    milestones_done: (startProgress ?? end.progress).milestonesDone,
  };
  return {
    ...end.progress,
    tasksCompletedThisRun: Math.max(0, end.progress.tasksDone - start.tasks_done),
    milestonesCompletedThisRun: Math.max(0, end.progress.milestonesDone - start.milestones_done),
  };
}
