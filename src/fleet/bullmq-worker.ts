import { type Job, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { RalphError } from '../errors.ts';
import { fencedWrite } from './fenced-write.ts';
import { FenceLostError } from './fleet-errors.ts';
import {
  ABORT_CANCELLED,
  ABORT_FENCE_LOST,
  type ActiveJob,
  type FleetJobSpec,
  type JobEngine,
  type JobOutcome,
  type WorkerHandle,
  type WorkerOptions,
} from './job-engine.ts';
import { connectRedis, type FleetKeys } from './redis-keys.ts';

/** A dead worker's run is resumed from its checkpoint, so a stall is no reason to fail it. */
const MAX_STALLED_COUNT = 50;

export type ControlMessage =
  | { kind: 'cancel'; runId: string }
  | { kind: 'drain'; worker?: string | undefined };

/** What the worker shares with the engine that opened it. */
interface WorkerContext {
  url: string;
  queueName: string;
  redis: Redis;
  keys: FleetKeys;
  engine: Pick<JobEngine, 'files' | 'get'>;
}

type Process = (job: ActiveJob) => Promise<JobOutcome>;

/** ioredis reports connection trouble as 'error' events; the awaited commands carry what matters. */
export function quiet(redis: Redis): Redis {
  redis.on('error', () => {});
  return redis;
}

/**
 * A BullMQ worker running `process` for each job, listening for cancel and drain on the fleet's
 * pub/sub channel. Its lock lifetime decides how soon a dead worker's run resumes elsewhere.
 */
export async function startBullmqWorker(
  ctx: WorkerContext,
  options: WorkerOptions,
  process: Process,
): Promise<{ handle: WorkerHandle; close: () => Promise<void> }> {
  const notice = options.onNotice ?? (() => {});
  const active = new Map<string, AbortController>();
  let draining = false;
  const subscriber = quiet(connectRedis(ctx.url));
  const connection = quiet(connectRedis(ctx.url));
  const worker = new Worker(
    ctx.queueName,
    (job: Job, token?: string) => runJob(ctx, job, token, options, active, () => draining, process),
    {
      connection,
      name: options.workerId,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      // The stalled check runs twice per lock lifetime: a dead worker's run waits ≤ ~1.5 locks.
      stalledInterval: Math.max(500, Math.floor(options.lockDurationMs / 2)),
      maxStalledCount: MAX_STALLED_COUNT,
    },
  );
  let lastError = '';
  worker.on('error', (error) => {
    // Reconnecting after a Redis restart repeats the same error many times: say it once.
    if (error.message !== lastError) notice(`worker: ${error.message}`);
    lastError = error.message;
  });
  worker.on('lockRenewalFailed', (ids: string[]) => {
    for (const id of ids) active.get(id)?.abort(ABORT_FENCE_LOST);
  });
  const closed = new Promise<void>((resolve) => worker.once('closed', () => resolve())).then(async () => {
    await subscriber.quit().catch(() => {});
    await connection.quit().catch(() => {});
  });
  const drain = async () => {
    if (!draining) {
      draining = true;
      notice('draining: running runs are handed over at their next iteration boundary');
      void worker.close();
    }
    await closed;
  };
  await subscriber.subscribe(ctx.keys.control);
  subscriber.on('message', (_channel: string, text: string) => {
    let message: ControlMessage;
    try {
      message = JSON.parse(text) as ControlMessage;
    } catch {
      return;
    }
    if (message.kind === 'cancel') active.get(message.runId)?.abort(ABORT_CANCELLED);
    if (message.kind === 'drain' && (message.worker === undefined || message.worker === options.workerId))
      void drain();
  });
  const close = async () => {
    await worker.close(true);
    await closed;
  };
  return { handle: { drain, closed }, close };
}

/** Processes one job: fence watch, the process callback, then what its outcome means for the job. */
async function runJob(
  ctx: WorkerContext,
  job: Job,
  token: string | undefined,
  options: WorkerOptions,
  active: Map<string, AbortController>,
  draining: () => boolean,
  process: Process,
): Promise<{ state: string }> {
  const runId = job.id;
  if (!runId || !token) throw new RalphError('fleet_job_invalid', 'a fleet job without an id or lock token');
  const { redis, keys } = ctx;
  const controller = new AbortController();
  active.set(runId, controller);
  let lost = false;
  const loseLock = () => {
    lost = true;
    controller.abort(ABORT_FENCE_LOST);
  };
  // Between checkpoints too: a worker whose lock went elsewhere kills its agent at once.
  let checking = false;
  const watch = setInterval(
    () => {
      if (checking || lost) return;
      checking = true;
      redis
        .get(keys.lock(runId))
        .then((holder) => {
          if (holder !== token) loseLock();
        })
        .catch(() => {})
        .finally(() => {
          checking = false;
        });
    },
    Math.max(200, Math.floor(options.lockDurationMs / 4)),
  );
  const activeJob: ActiveJob = {
    runId,
    spec: job.data as FleetJobSpec,
    workerId: options.workerId,
    signal: controller.signal,
    draining,
    writeCheckpoint: async (checkpoint) => {
      if (lost || !(await fencedWrite(redis, keys, runId, token, checkpoint))) {
        loseLock();
        throw new FenceLostError(runId);
      }
    },
    readFiles: () => ctx.engine.files(runId),
    readRun: () => ctx.engine.get(runId),
    cancelRequested: async () => (await redis.hget(keys.run(runId), 'cancel')) === '1',
    fleetCost: async () => Number((await redis.get(keys.cost)) ?? 0),
  };
  try {
    const outcome = await process(activeJob);
    if (outcome.kind === 'handover') {
      // Fenced by BullMQ (the token): back to the head of the queue, no lock expiry to wait for.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    if (outcome.kind === 'fenced') throw new FenceLostError(runId);
    return { state: outcome.state };
  } finally {
    clearInterval(watch);
    active.delete(runId);
  }
}
