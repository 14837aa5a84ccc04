import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { RalphError } from '../errors.ts';
import { type ControlMessage, quiet, startBullmqWorker } from './bullmq-worker.ts';
import type {
  ActiveJob,
  FleetJobSpec,
  FleetRunInfo,
  JobEngine,
  JobOutcome,
  WorkerHandle,
  WorkerOptions,
} from './job-engine.ts';
import { connectRedis, type FleetKeys, fleetKeys, probeRedis } from './redis-keys.ts';
import { parseRunRecord } from './run-record.ts';

const KEEP_FINISHED = { count: 1000 };

/** Opens the fleet on BullMQ at `url` (fails fast, with the URL, when Redis is not there). */
export async function openBullmqEngine(url: string, queueName = 'ralph'): Promise<JobEngine> {
  await probeRedis(url);
  return new BullmqEngine(url, queueName);
}

class BullmqEngine implements JobEngine {
  private readonly redis: Redis;
  private readonly queueConnection: Redis;
  private readonly queue: Queue;
  private readonly keys: FleetKeys;
  private readonly closers: (() => Promise<void>)[] = [];
  private readonly url: string;
  private readonly queueName: string;

  constructor(url: string, queueName: string) {
    this.url = url;
    this.queueName = queueName;
    this.keys = fleetKeys(queueName);
    this.redis = quiet(connectRedis(url));
    this.queueConnection = quiet(connectRedis(url));
    this.queue = new Queue(queueName, { connection: this.queueConnection });
    this.queue.on('error', () => {});
  }

  async submit(spec: FleetJobSpec, runId: string): Promise<void> {
    if ((await this.redis.exists(this.keys.run(runId))) === 1)
      throw new RalphError('fleet_run_exists', `a fleet run ${runId} already exists; pick another --name`);
    const fields: Record<string, string> = {
      state: 'queued',
      spec: JSON.stringify(spec),
      submittedAt: spec.submittedAt,
      updatedAt: spec.submittedAt,
      attempts: '0',
    };
    if (spec.name) fields.name = spec.name;
    await this.redis
      .multi()
      .hset(this.keys.run(runId), fields)
      .zadd(this.keys.index, String(Date.parse(spec.submittedAt)), runId)
      .exec();
    await this.queue.add('run', spec, {
      jobId: runId,
      // A run is never retried as a whole: a failure is the loop's verdict, a crash resumes it.
      attempts: 1,
      removeOnComplete: KEEP_FINISHED,
      removeOnFail: KEEP_FINISHED,
    });
  }

  async list(): Promise<FleetRunInfo[]> {
    const ids = await this.redis.zrange(this.keys.index, '0', '-1');
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.keys.run(id));
    const results = (await pipe.exec()) ?? [];
    return ids.flatMap((id, i) => {
      const run = parseRunRecord(id, (results[i]?.[1] as Record<string, string>) ?? {});
      return run ? [run] : [];
    });
  }

  async get(runId: string): Promise<FleetRunInfo | undefined> {
    return parseRunRecord(runId, await this.redis.hgetall(this.keys.run(runId)));
  }

  files(runId: string): Promise<Record<string, Buffer>> {
    // Bytes, not text: a binary file must come back as it was checkpointed.
    return this.redis.hgetallBuffer(this.keys.files(runId));
  }

  async cancel(runId: string): Promise<'removed' | 'signalled' | 'finished' | 'unknown'> {
    const run = await this.get(runId);
    if (!run) return 'unknown';
    // The flag outlives a missed message: whoever picks the run up next sees it first.
    await this.redis.hset(this.keys.run(runId), 'cancel', '1');
    const job = await this.queue.getJob(runId);
    const state = job ? await job.getState() : 'unknown';
    if (state === 'completed' || state === 'failed' || (!job && run.state !== 'running')) return 'finished';
    if (job && state !== 'active') {
      try {
        await job.remove();
        await this.redis.hset(this.keys.run(runId), {
          state: 'cancelled',
          stopReason: 'cancelled',
          message: 'cancelled by `ralph fleet cancel` before it started',
          updatedAt: new Date().toISOString(),
        });
        return 'removed';
      } catch {
        // Picked up meanwhile (locked): tell its worker instead.
      }
    }
    await this.publish({ kind: 'cancel', runId });
    return 'signalled';
  }

  async drain(workerId?: string): Promise<void> {
    await this.publish({ kind: 'drain', worker: workerId });
  }

  private async publish(message: ControlMessage): Promise<void> {
    await this.redis.publish(this.keys.control, JSON.stringify(message));
  }

  async startWorker(
    options: WorkerOptions,
    process: (job: ActiveJob) => Promise<JobOutcome>,
  ): Promise<WorkerHandle> {
    if (options.globalConcurrency !== undefined)
      await this.queue.setGlobalConcurrency(options.globalConcurrency);
    const started = await startBullmqWorker(
      { url: this.url, queueName: this.queueName, redis: this.redis, keys: this.keys, engine: this },
      options,
      process,
    );
    this.closers.push(started.close);
    return started.handle;
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0)) await close();
    await this.queue.close().catch(() => {});
    await this.queueConnection.quit().catch(() => {});
    await this.redis.quit().catch(() => {});
  }
}
