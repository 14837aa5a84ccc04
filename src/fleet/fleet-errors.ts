import { RalphError } from '../errors.ts';

/** This worker no longer holds the job's lock: another worker owns the run now. */
export class FenceLostError extends RalphError {
  constructor(runId: string) {
    super(
      'fleet_fence_lost',
      `lost the lock of fleet run ${runId}: another worker owns it now, so this worker stopped writing and killed its agent`,
    );
    this.name = 'FenceLostError';
  }
}

/** Redis cannot be reached at the configured URL (credentials never shown). */
export class RedisUnreachableError extends RalphError {
  constructor(url: string, cause: unknown) {
    super(
      'fleet_redis_unreachable',
      `cannot reach Redis at ${url}: ${(cause as Error)?.message ?? String(cause)}; start Redis (e.g. \`redis-server --appendonly yes\`) or pass the right URL with --redis, RALPH_REDIS_URL or fleet.redis in the user config`,
      { cause },
    );
    this.name = 'RedisUnreachableError';
  }
}

/** A Redis URL with its password replaced, for messages and logs. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
