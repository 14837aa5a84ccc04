import type { FleetSource } from '../dashboard/fleet-section.ts';
import { RalphError } from '../errors.ts';
import type { JobEngine } from '../fleet/job-engine.ts';
import { fleetSettings, NO_REDIS } from './fleet-settings.ts';
import type { CliIO } from './io.ts';

/**
 * The dashboard's fleet section, when a fleet Redis is configured (RALPH_REDIS_URL or
 * fleet.redis); undefined otherwise. Redis is opened on the first page view and again after a
 * failure, so a Redis that comes up later shows up without restarting the dashboard.
 */
export function fleetForDashboard(
  io: CliIO,
): { source: FleetSource; close: () => Promise<void> } | undefined {
  let url: string;
  try {
    url = fleetSettings({}, io).redisUrl;
  } catch (error) {
    if (!(error instanceof RalphError && error.code === NO_REDIS))
      io.err(`ralph dashboard: no fleet section: ${(error as Error).message}\n`);
    return undefined;
  }
  let engine: JobEngine | undefined;
  const source: FleetSource = async () => {
    if (!engine) {
      const { openBullmqEngine } = await import('../fleet/bullmq-engine.ts');
      engine = await openBullmqEngine(url);
    }
    return engine.list();
  };
  return { source, close: async () => engine?.close() };
}
