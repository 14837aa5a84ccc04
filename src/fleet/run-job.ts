import { join } from 'node:path';
import type { Backend } from '../backends/types.ts';
import type { RalphConfig } from '../config/schema.ts';
import type { RequestedStop } from '../engine/context/run-options.ts';
import { runLoop } from '../engine/run/loop.ts';
import type { LoopSummary } from '../engine/run/loop-summary.ts';
import type { LoopEvent } from '../observe/events.ts';
import { formatBytes } from '../observe/head-tail.ts';
import type { LoopState } from '../state/loop-state.ts';
import {
  checkpointState,
  createCheckpointTracker,
  forgetForeignAgent,
  MAX_CHECKPOINT_FILE_BYTES,
  restoreRalphFiles,
  type SkippedFile,
} from './checkpoint-files.ts';
import { fencedSweep, pushWithLease } from './fenced-effects.ts';
import { FenceLostError } from './fleet-errors.ts';
import { commitLeftovers, prepareWorkspace } from './fleet-git.ts';
import {
  ABORT_CANCELLED,
  ABORT_FENCE_LOST,
  type ActiveJob,
  type FleetJobSpec,
  type FleetRunState,
  type JobOutcome,
} from './job-engine.ts';

/** What a worker needs besides the job: where workspaces go and how a run is configured. */
interface RunJobDeps {
  /** Each run gets `<workdir>/<run-id>`. */
  workdir: string;
  /** Config, prompt and backend of a workspace, as `ralph run` resolves them (the CLI's resolver). */
  resolve: (
    workspace: string,
    spec: FleetJobSpec,
  ) => { config: RalphConfig; prompt: string; backend: Backend };
  /** The fleet-wide cost cap (USD): no new iteration starts once the fleet spent this much. */
  fleetMaxCostUsd?: number | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  onEvent?: ((runId: string, event: LoopEvent) => void) | undefined;
  notice: (message: string) => void;
}

const now = () => new Date().toISOString();

/** What a checkpoint left out for its size, as the run's record and the worker's notice say it; null: nothing. */
function skippedText(skipped: readonly SkippedFile[]): string | null {
  if (skipped.length === 0) return null;
  const files = skipped.map((f) => `${f.path} (${formatBytes(f.bytes)})`).join(', ');
  return `${files}: over the ${formatBytes(MAX_CHECKPOINT_FILE_BYTES)} a checkpoint carries per file; a worker resuming the run elsewhere has its last smaller version, or none (lower logs.max_output_mb to keep run logs under it)`;
}
const CANCELLED = 'cancelled by `ralph fleet cancel`';
const capReached = (cap: number) => `the fleet-wide cost cap ($${cap}, fleet.max_cost_usd) is reached`;

/** The loop's end as a fleet state: a completed loop completes; a stop by a limit or failure stops. */
type FinalState = 'completed' | 'stopped' | 'cancelled' | 'failed';
function finalState(stopReason: string | null): FinalState {
  if (stopReason === 'completed') return 'completed';
  if (stopReason === 'cancelled') return 'cancelled';
  return 'stopped';
}

/** What a checkpoint records of the run so far: from the loop's state after an iteration, or its summary at the end. */
type RunProgress = Pick<LoopSummary, 'iterations' | 'costUsd'> & { tokens: { total: number } };
const progressOf = (state: Readonly<LoopState>): RunProgress => ({
  iterations: state.iterations,
  costUsd: state.cost_usd,
  tokens: state.tokens,
});

/** A checkpointed state that already ended: its job finishes without running anything again. */
function endedState(files: Record<string, Buffer>, runId: string): LoopState | undefined {
  const state = checkpointState(files, runId);
  return state?.status === 'completed' || state?.status === 'stopped' ? state : undefined;
}

/**
 * Runs one fleet job: workspace from the checkpoint (or the branch), the normal loop there, and
 * after every iteration a push of `ralph/fleet/<run-id>` and a fenced checkpoint. A lost lock
 * aborts the loop (its agent group is killed) and nothing more is written or pushed.
 */
export async function runFleetJob(job: ActiveJob, deps: RunJobDeps): Promise<JobOutcome> {
  const { runId, spec } = job;
  const fields = (state: FleetRunState, extra: Record<string, string | number | null> = {}) => ({
    state,
    worker: job.workerId,
    updatedAt: now(),
    ...extra,
  });
  const finish = async (state: FinalState, extra = {}) => {
    await job.writeCheckpoint({ files: {}, run: fields(state, extra), costDelta: 0 });
    return { kind: 'finished' as const, state };
  };
  try {
    if (await job.cancelRequested())
      return await finish('cancelled', {
        stopReason: 'cancelled',
        message: CANCELLED,
      });
    const before = await job.readRun();
    await job.writeCheckpoint({
      files: {},
      run: fields('running', { attempts: (before?.attempts ?? 0) + 1 }),
      costDelta: 0,
    });
    const files = await job.readFiles();
    const ended = endedState(files, runId);
    // The worker died after the run's last checkpoint: it ended, nothing runs again.
    if (ended)
      return await finish(finalState(ended.stop_reason), {
        stopReason: ended.stop_reason,
        message: ended.stop_message,
      });

    const ws = join(deps.workdir, runId);
    let { remoteSha } = await prepareWorkspace(ws, spec, runId, before?.commit ?? null);
    const refused = restoreRalphFiles(ws, files);
    if (refused.length > 0)
      deps.notice(`run ${runId}: ignored checkpoint paths outside .ralph/: ${refused.join(', ')}`);
    const resumed = forgetForeignAgent(ws);
    if (job.draining()) return await handOver(job, fields);

    const { config, prompt, backend } = deps.resolve(ws, spec);
    const tracker = createCheckpointTracker(ws, files);
    let lastCost = before?.costUsd ?? 0;
    let announced: string | null = null;
    let handedOver = false;

    /** Push, then the fenced checkpoint naming the pushed commit (so a resume finds it). */
    const checkpoint = async (progress: RunProgress, run: Record<string, string | number | null>) => {
      const pushed = await pushWithLease(job, ws, runId, remoteSha);
      remoteSha = pushed;
      const { files: changed, current, skipped } = tracker.changes();
      const left = skippedText(skipped);
      if (left && left !== announced) deps.notice(`run ${runId}: checkpoint left out ${left}`);
      announced = left;
      await job.writeCheckpoint({
        files: changed,
        run: {
          ...run,
          checkpointSkipped: left,
          iteration: progress.iterations,
          costUsd: progress.costUsd,
          tokens: progress.tokens.total,
          commit: pushed,
        },
        costDelta: Math.max(0, progress.costUsd - lastCost),
      });
      lastCost = progress.costUsd;
      tracker.written(current);
    };

    const afterIteration = async ({
      state,
    }: {
      state: Readonly<LoopState>;
    }): Promise<RequestedStop | undefined> => {
      if (job.signal.aborted) return undefined;
      await commitLeftovers(ws, runId, state.iterations);
      await checkpoint(progressOf(state), fields('running'));
      if (job.draining()) {
        handedOver = true;
        return { reason: 'interrupted', message: `handed over: worker ${job.workerId} is draining` };
      }
      if (await job.cancelRequested()) return { reason: 'cancelled', message: CANCELLED };
      const cap = deps.fleetMaxCostUsd;
      if (cap !== undefined && (await job.fleetCost()) >= cap)
        return {
          reason: 'max_cost',
          message: capReached(cap),
        };
      return undefined;
    };

    const cap = deps.fleetMaxCostUsd;
    if (cap !== undefined && (await job.fleetCost()) >= cap)
      return await finish('stopped', {
        stopReason: 'max_cost',
        message: `not started: ${capReached(cap)}`,
      });

    const summary = await runLoop({
      workspace: ws,
      config,
      prompt,
      backend,
      mode: resumed ? 'resume' : 'fresh',
      runId,
      signal: job.signal,
      afterIteration,
      sweep: fencedSweep(job),
      reporters: deps.onEvent ? [{ onEvent: (event) => deps.onEvent?.(runId, event) }] : [],
      env: deps.env,
    });
    if (job.signal.reason === ABORT_FENCE_LOST) return fenced(deps, runId);
    if (job.signal.reason === ABORT_CANCELLED) {
      await checkpoint(summary, fields('cancelled', { stopReason: 'cancelled', message: CANCELLED }));
      return { kind: 'finished', state: 'cancelled' };
    }
    // A drain that met the run's own end (it completed in that iteration) is no hand-over.
    if (handedOver && summary.stopReason === 'interrupted') {
      await checkpoint(summary, fields('handed_over', { message: `handed over by worker ${job.workerId}` }));
      return { kind: 'handover' };
    }
    await commitLeftovers(ws, runId, summary.iterations);
    const state = finalState(summary.stopReason);
    await checkpoint(summary, fields(state, { stopReason: summary.stopReason, message: summary.message }));
    return { kind: 'finished', state };
  } catch (error) {
    if (error instanceof FenceLostError || job.signal.reason === ABORT_FENCE_LOST) return fenced(deps, runId);
    deps.notice(`run ${runId} failed: ${(error as Error).message}`);
    return await finish('failed', { stopReason: 'error', message: (error as Error).message }).catch((e) => {
      if (e instanceof FenceLostError) return { kind: 'fenced' as const };
      throw e;
    });
  }
}

function fenced(deps: RunJobDeps, runId: string): JobOutcome {
  deps.notice(new FenceLostError(runId).message);
  return { kind: 'fenced' };
}

async function handOver(
  job: ActiveJob,
  fields: (s: FleetRunState) => Record<string, string>,
): Promise<JobOutcome> {
  await job.writeCheckpoint({ files: {}, run: fields('handed_over'), costDelta: 0 });
  return { kind: 'handover' };
}
