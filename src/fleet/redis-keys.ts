import type { Redis } from 'ioredis';
import { Redis as RedisClient } from 'ioredis';
import { RedisUnreachableError, safeRedisUrl } from './fleet-errors.ts';

/** BullMQ's key prefix (its default); a job's lock is `bull:<queue>:<job-id>:lock`. */
const BULL_PREFIX = 'bull';

/** The Redis keys of one fleet (one queue), beside BullMQ's own. */
export function fleetKeys(queue: string) {
  const base = `ralph:fleet:${queue}`;
  return {
    /** Run ids by submit time, so status lists runs whatever BullMQ keeps. */
    index: `${base}:runs`,
    /** A run's record: state, worker, iteration, cost, spec, cancel flag. */
    run: (runId: string) => `${base}:run:${runId}`,
    /** A run's checkpointed `.ralph/` files: path → content. */
    files: (runId: string) => `${base}:files:${runId}`,
    /** The fleet-wide cost of every checkpointed iteration (USD). */
    cost: `${base}:cost`,
    /** Pub/sub channel of cancel and drain messages to the workers. */
    control: `${base}:control`,
    lock: (runId: string) => `${BULL_PREFIX}:${queue}:${runId}:lock`,
  };
}
export type FleetKeys = ReturnType<typeof fleetKeys>;

/**
 * A connection that keeps reconnecting (workers ride out a Redis restart); BullMQ requires
 * `maxRetriesPerRequest: null` for its blocking commands.
 */
export function connectRedis(url: string): Redis {
  return new RedisClient(url, { maxRetriesPerRequest: null, lazyConnect: false });
}

/** Fails fast with a clear error when Redis is not reachable at `url` (one attempt, 3 s). */
export async function probeRedis(url: string): Promise<void> {
  const probe = new RedisClient(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // ioredis reports connection errors as events too; the awaited call below carries them.
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    throw new RedisUnreachableError(safeRedisUrl(url), error);
  } finally {
    probe.disconnect();
  }
}
