import { basename, join } from 'node:path';
import { startingTopic } from '../../config/hat-checks.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { FileSystemError } from '../../errors.ts';
import { readGitHead } from '../../git/head.ts';
import { createWorkingTreeCache } from '../../git/status-cache.ts';
import { sweepMarkedProcesses } from '../../process/marked-processes.ts';
import { assertSupportedPlatform } from '../../process/platform.ts';
import { FORCED_STOP_MESSAGE } from '../../state/force-stop.ts';
import { recordStop } from '../../state/loop-state/run-status.ts';
import { type PendingEvent, writeLoopState } from '../../state/loop-state.ts';
import { RUNTIME_PATHS, ralphPaths } from '../../state/paths.ts';
import { pruneAtStart } from '../../state/run-dirs.ts';
import { armForceStop } from '../context/force-signal.ts';
import { createRunContext, type RunContext, type RunSandbox } from '../context/run-context.ts';
import type { RunLoopOptions } from '../context/run-options.ts';
import { redactDebugTrace, runRedactor } from '../context/run-redactor.ts';
import { ralphScratchpadPaths } from '../context/workspace-context.ts';
import { type Limits, limitReached, type Stop, stop } from '../decide/limits.ts';
import { confirmDoneAtStart } from '../gates/done-at-start.ts';
import { gitConfigAtStart } from '../gates/git-config-gate.ts';
import { gitViewAtStart } from '../gates/git-view.ts';
import { protectAtStart } from '../gates/protect-gate.ts';
import { reviewAtStart } from '../gates/review-gate.ts';
import { rollbackAtStart } from '../gates/rollback.ts';
import { markProgressAtStart } from '../gates/work-progress.ts';
import { iterationHooks, loopStartHooks, planHooks } from '../hooks/loop-hooks.ts';
import { armHooks } from '../hooks/run-hooks.ts';
import { runIteration } from '../iteration/iteration.ts';
import { metricAtStart } from '../metric/metric-step.ts';
import { runSandboxOf } from '../readiness/sandbox-input.ts';
import { reposAtStart } from '../repos/repo-iteration.ts';
import { pauseForHook } from '../steering/control-inbox.ts';
import { answerInteractions } from '../steering/human-interact.ts';
import { enterMilestone } from '../workflow-steps/milestone-prs.ts';
import {
  boundaryStop,
  preIterationStop,
  sleepUnlessStopped,
  stopAfterFinishing,
  waitForWork,
  waitWhileParked,
  waitWhilePaused,
} from './between-iterations.ts';
import { settleHeldReview } from './held-review.ts';
import type { LoopSummary } from './loop-summary.ts';
import { forgeQuotaWaiter, StopWhileParked, waitForMerge } from './merge-wait.ts';
import { endRun, userError } from './run-end.ts';
import { afterFirstAgent, openRunReporters, type RunReporters } from './run-reporters.ts';
import { prepareRun } from './run-setup.ts';
import { preflightRun, startRun } from './run-start.ts';

export type { RunLoopOptions } from '../context/run-options.ts';

/** Limits of a config, in the units the engine uses. */
export function limitsOf(config: RalphConfig): Limits {
  const l = config.event_loop;
  return {
    maxIterations: l.max_iterations,
    maxRuntimeMs: l.max_runtime_seconds * 1000,
    maxCostUsd: l.max_cost_usd,
    maxTokens: l.max_tokens,
    maxConsecutiveFailures: l.max_consecutive_failures,
  };
}

/** The events a new run starts with: the starting event in hats mode, nothing in solo mode. */
export function initialEvents(config: RalphConfig): PendingEvent[] {
  if (Object.keys(config.hats).length === 0) return [];
  const topic = startingTopic(config);
  return [{ topic, payload: null, source: 'starting_event', iteration: null }];
}

/**
 * Runs the loop until completion, a limit, repeated failure, a stop request or an interrupt.
 * Never writes to the console and never exits the process: everything observable goes through
 * the reporters (the run log, the stream file, diagnostics, notifications and the run registry,
 * then `options.reporters`), `.ralph/state.json`, the events file and the iteration records.
 * Resolves to the run's {@link LoopSummary}; rejects (a {@link RalphError} for a refused start or a
 * file-system failure) once the state is saved as far as it can be.
 */
export async function runLoop(given: RunLoopOptions): Promise<LoopSummary> {
  const restore = redactDebugTrace(() => runRedactor(given.env ?? process.env, given.config));
  try {
    return await runLoopRedacted(given);
  } finally {
    restore();
  }
}

async function runLoopRedacted(given: RunLoopOptions): Promise<LoopSummary> {
  // Before anything: process groups, signals and the process table are POSIX's.
  assertSupportedPlatform();
  // A forced stop stops the run too: every wait and agent turn hears it as they hear `signal`.
  const options = given.forceSignal ? { ...given, signal: anyAbort(given.signal, given.forceSignal) } : given;
  const now = options.now ?? Date.now;
  const { config } = options;
  const paths = ralphPaths(options.workspace);
  const limits = limitsOf(config);
  const mode = options.mode ?? 'auto';

  const { layout, startProgress, gitConfig } = await preflightRun(options, paths, mode);
  const inRepo = layout !== undefined;
  const env = options.env ?? process.env;
  // One `git status` per iteration costs ~50-90 ms in a 20,000-file repository: it runs again
  // only when the watched work tree, the index, HEAD or the git config changed. Closed if the
  // setup fails.
  const workingTree = layout
    ? createWorkingTreeCache(options.workspace, RUNTIME_PATHS, env, layout, { watchLater: true })
    : undefined;
  // Once the first agent runs, not before it: the watch (its git processes), pruning old runs.
  let housekeeping = () => workingTree?.watch();
  const prepared = await prepareRun({
    paths,
    mode,
    backend: options.backend.name,
    maxIterations: limits.maxIterations,
    killGraceMs: config.event_loop.kill_grace_seconds * 1000,
    now: new Date(now()),
    initialEvents: initialEvents(config),
    scratchpadFiles: ralphScratchpadPaths(config, paths),
    sweep: options.sweep ?? sweepMarkedProcesses,
    runId: options.runId,
    env,
    // In the first state.json: a kill -9 in the first iteration must not leave a run without it.
    gitConfig,
  }).catch((error: unknown) => {
    workingTree?.close();
    throw error;
  });
  const { state, lock } = prepared;
  const force = armForceStop(options.forceSignal, paths, state.run_id);
  const logFile = join(options.workspace, state.log_file);
  const redact = runRedactor(env, config);
  let run: RunReporters;
  let sandbox: RunSandbox | undefined;
  try {
    // Before the reporters: the agent's files it creates are in place before anything reads them.
    sandbox = await runSandboxOf(options, env, join(options.workspace, state.events_file), layout);
    run = await openRunReporters({
      workspace: options.workspace,
      config,
      paths,
      state,
      logFile,
      env,
      now,
      redact,
      extra: [afterFirstAgent(() => housekeeping()), force.reporter, ...(options.reporters ?? [])],
    });
  } catch (error) {
    // Nothing ran yet: the run stays resumable, the lock is given back, the message says what to fix.
    const user = userError(error) ?? error;
    // A full or read-only disk leaves the run unfinished: a plain `ralph run` must not start over it.
    recordStop(state, user instanceof FileSystemError ? 'interrupted' : 'stopped', {
      reason: 'error',
      message: (user as Error).message,
      exitCode: 1,
    });
    try {
      writeLoopState(paths.state, state);
    } catch {
      // The same disk problem: state.json keeps its last good content.
    }
    lock.release();
    workingTree?.close();
    force.dispose();
    throw user;
  }
  const { emit } = run;
  housekeeping = () => {
    workingTree?.watch();
    for (const message of pruneAtStart(paths, config.logs, state.run_id, basename(logFile)))
      emit({ type: 'notice', level: 'info', message });
  };
  const startIterations = state.iterations;
  const pendingChanges = workingTree ? () => workingTree.changes() : undefined;
  const ctx = createRunContext({
    options,
    paths,
    state,
    limits,
    inRepo,
    pendingChanges,
    redact,
    emit,
    lock,
    forced: force.forced,
    sandbox,
  });
  ctx.forgeQuotaWait = forgeQuotaWaiter(ctx);
  armHooks(ctx, {
    suspend: (c) => {
      pauseForHook(c.state);
      return waitWhilePaused(c);
    },
    sleep: sleepUnlessStopped,
  });

  let final: Stop | undefined;
  let failed: { error: unknown } | undefined;
  try {
    gitConfigAtStart(ctx, gitConfig);
    const start = startRun(ctx, prepared, logFile);
    final = start.decided;
    // The index flags and .git/info/exclude Ralph's view of the tree counts on (git-view.ts), before
    // a rollback a crash cut short reads it.
    await gitViewAtStart(ctx, layout);
    // Even when the run ends at once: a rollback a crash cut short is finished first.
    await rollbackAtStart(ctx);
    reposAtStart(ctx);
    // Nothing to do (gates green on the tree as it is) outranks a TDD state problem.
    if (final === undefined && start.doneClaim) final = await confirmDoneAtStart(ctx, start.doneClaim);
    final ??= start.tddStop;
    if (final === undefined) await metricAtStart(ctx);
    if (final === undefined) final = await iterateUntilStop(ctx);
  } catch (error) {
    // After a forced stop the step that tried to save more ended here: the forced record stands.
    if (force.forced()) final = undefined;
    else if (error instanceof StopWhileParked) {
      // Stopped while waiting for GitHub's quota: a half-settled iteration runs again on --resume.
      if (ctx.cutShort()) ctx.restoreSaved();
      final = error.stop;
    } else {
      const user = userError(error);
      // A full or read-only disk mid-step, or any error while an iteration settles: the state goes
      // back to what was last saved (as a kill at that instant would leave it), so --resume neither
      // counts a half-settled iteration nor loses the stop it was deciding: it judges that iteration
      // again from its saved start.
      if (user instanceof FileSystemError || ctx.cutShort()) ctx.restoreSaved();
      final = stop('error', user ? user.message : `internal error: ${(error as Error).message}`);
      failed = { error: user ?? error };
    }
  }
  force.dispose();
  // The forced stop's record is on disk already: the run ends as it says.
  if (force.forced()) final = stop('interrupted', FORCED_STOP_MESSAGE);
  return endRun(
    {
      ctx,
      reporters: run.reporters,
      lock,
      workingTree,
      logFile,
      resumedUnfinished: prepared.resumedUnfinished === true,
      startIterations,
      forced: force.forced(),
      startProgress,
    },
    final,
    failed,
  );
}

/** Aborted when either is (Node 20.3's AbortSignal.any, kept to what the loop needs). */
function anyAbort(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  return a ? AbortSignal.any([a, b]) : b;
}

/** The main loop: boundary checks, the idle wait, one iteration, the solo-mode cooldown. */
async function iterateUntilStop(ctx: RunContext): Promise<Stop> {
  const { state } = ctx;
  const preStart = await loopStartHooks(ctx, 'pre.loop.start');
  if (preStart) return preStart;
  // gates.protect: what the protected files hold now is what the gates check against.
  protectAtStart(ctx);
  // Where the no-progress rule measures the first iteration from (kept across --resume).
  await markProgressAtStart(ctx);
  reviewAtStart(ctx, ctx.inRepo ? (readGitHead(ctx.options.workspace).commit ?? null) : null);
  const postStart = await loopStartHooks(ctx, 'post.loop.start');
  if (postStart) return postStart;
  let first = true;
  for (;;) {
    // A review point held by the last stop (--resume) is settled before the limits are looked at:
    // its iteration ran within them, and settling it (commit, push) runs no agent. settleHeldReview
    // checks the limits itself once it is settled.
    const heldAtStart = first && state.held_question?.point != null;
    const before = (heldAtStart ? undefined : boundaryStop(ctx)) ?? (await preIterationStop(ctx, first));
    first = false;
    if (before) return before;
    // A review point or question a stop or Ctrl-C left unanswered comes first (--resume).
    const human =
      (await waitWhilePaused(ctx)) ?? (await settleHeldReview(ctx)) ?? (await answerInteractions(ctx));
    if (human) return human;
    if (state.parked) {
      const woke = await waitWhileParked(ctx);
      if (woke) return woke;
    }
    if (state.idle) {
      const woke = await waitForWork(ctx);
      if (woke) return woke;
    }
    // forge.pull_requests: a ready milestone waits for its merge; each milestone on its own branch.
    const merge = await waitForMerge(ctx);
    if (merge) return merge;
    await enterMilestone(ctx);
    const refused = await iterationHooks(ctx);
    if (refused) return refused;
    const decided =
      (await runIteration(ctx)) ?? (await planHooks(ctx)) ?? limitReached(ctx.counters(), ctx.limits);
    const requested = await ctx.options.afterIteration?.({ state });
    const after = stopAfterFinishing(
      ctx,
      decided ?? (requested ? stop(requested.reason, requested.message) : undefined),
    );
    if (after) return after;
    // Solo mode paces every iteration; with hats, hand-offs never wait (only the idle path does).
    if (!ctx.hatsMode && !state.idle)
      await sleepUnlessStopped(ctx, ctx.config.event_loop.cooldown_delay_seconds * 1000);
  }
}
