import type { HatConfig, RalphConfig } from '../config/schema.ts';

/** What runs in the next iteration. `hat: null` is solo mode (no hats, or none matching). */
export interface Route {
  hatId: string | null;
  hat: HatConfig | null;
}

/**
 * The routing seam: picks the hat for the next iteration from the pending events. This version runs
 * solo mode only; the hat engine replaces the body and keeps the signature.
 */
export function routeIteration(_config: RalphConfig, _pendingTopics: readonly string[]): Route {
  return { hatId: null, hat: null };
}
