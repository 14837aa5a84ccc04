import type { FleetSource } from '../../dashboard/fleet-section.ts';
import { RalphError } from '../../errors.ts';
import type { JobEngine } from '../../fleet/job-engine.ts';
import { openFleet } from '../../fleet/open-fleet.ts';
import type { CliIO } from '../io.ts';
import { fleetSettings, NO_REDIS } from './fleet-settings.ts';

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
  // The promise, not the engine: two first page views at once share one connection. A failed
  // open is forgotten, so the next view tries again.
  let engine: Promise<JobEngine> | undefined;
  const source: FleetSource = async () => {
    engine ??= openFleet(url).catch((error: unknown) => {
      engine = undefined;
      throw error;
    });
    return (await engine).list();
  };
  return { source, close: async () => (await engine?.catch(() => undefined))?.close() };
}
