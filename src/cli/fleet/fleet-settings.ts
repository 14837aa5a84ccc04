import { join } from 'node:path';
import { REDIS_URL } from '../../config/schema/operations-values.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { resolveRunConfig } from '../../engine/run/resolve-run.ts';
import { RalphError, type RalphErrorCode, UsageError } from '../../errors.ts';
import { userStateDir } from '../../state/run-registry.ts';
import type { CliIO } from '../io.ts';

/** The code of the error "no Redis URL anywhere" (the dashboard then simply has no fleet section). */
export const NO_REDIS = 'fleet_no_redis' satisfies RalphErrorCode;

interface FleetSettings {
  redisUrl: string;
  fleet: RalphConfig['fleet'];
}

/**
 * The fleet's Redis: `--redis`, then RALPH_REDIS_URL, then `fleet.redis` of the config layers
 * (the user config, and the ralph.yml of the current directory when there is one).
 */
export function fleetSettings(flags: { redis?: string | undefined }, io: CliIO): FleetSettings {
  const { config } = resolveRunConfig({ cwd: io.cwd, env: io.env });
  const fromEnv = io.env.RALPH_REDIS_URL?.trim();
  const [url, source] =
    flags.redis !== undefined
      ? [flags.redis, '--redis']
      : fromEnv
        ? [fromEnv, 'RALPH_REDIS_URL']
        : [config.fleet.redis, 'fleet.redis'];
  if (!url)
    throw new RalphError(
      NO_REDIS,
      'no Redis for the fleet: pass --redis redis://HOST:PORT, set RALPH_REDIS_URL, or set fleet.redis in ~/.config/ralph/config.yml',
    );
  // fleet.redis was checked with the config; the flag and the variable are checked here.
  if (!REDIS_URL.test(url))
    throw new UsageError(`${source} must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379)`);
  return { redisUrl: url, fleet: config.fleet };
}

/** Where a worker clones run workspaces by default: `$XDG_STATE_HOME/ralph/fleet`. */
export function defaultWorkdir(env: NodeJS.ProcessEnv): string {
  return join(userStateDir(env), 'fleet');
}
