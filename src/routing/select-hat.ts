import type { HatConfig, RalphConfig } from '../config/schema.ts';
import { topicMatches, triggerSpecificity } from '../config/topic-match.ts';
import type { PendingEvent } from '../state/loop-state.ts';

/** What the next iteration runs, and what happens to every pending event. */
export interface HatSelection {
  /** The active hat, or null for solo/coordinator mode (no hats, or no event routes to one). */
  hatId: string | null;
  hat: HatConfig | null;
  /** Events shown to the active hat (all of them in solo/coordinator mode); removed from the queue. */
  consumed: PendingEvent[];
  /** Events that route to another, still available hat: they stay queued. */
  remaining: PendingEvent[];
  /** Events no available hat triggers on: dropped. */
  unmatched: PendingEvent[];
  /** Hats skipped because `max_activations` was reached although a pending event triggers them. */
  exhausted: string[];
}

/** Loop-injected topics: they route only when no event from real progress can. */
export const SYSTEM_TOPICS: readonly string[] = ['task.start', 'task.resume'];

/** The specificity of the hat's most specific trigger matching `topic`, or undefined. */
function matchSpecificity(hat: HatConfig, topic: string): number | undefined {
  let best: number | undefined;
  for (const trigger of hat.triggers) {
    if (!topicMatches(trigger, topic)) continue;
    const s = triggerSpecificity(trigger);
    if (best === undefined || s > best) best = s;
  }
  return best;
}

/**
 * The hat `topic` routes to among `hats` (in config order): the one with the most specific matching
 * trigger (an exact topic beats `work.*`, which beats `*`), the first in config order on a tie.
 */
export function routeTopic(hats: ReadonlyArray<readonly [string, HatConfig]>, topic: string): string | null {
  let best: { id: string; specificity: number } | undefined;
  for (const [id, hat] of hats) {
    const s = matchSpecificity(hat, topic);
    if (s !== undefined && (best === undefined || s > best.specificity)) best = { id, specificity: s };
  }
  return best?.id ?? null;
}

function isExhausted(id: string, hat: HatConfig, activations: Record<string, number>): boolean {
  return hat.max_activations !== undefined && (activations[id] ?? 0) >= hat.max_activations;
}

/**
 * Picks the hat for the next iteration (pure). The routing event is the earliest pending event
 * that routes to an available hat, events from real progress before `task.start`/`task.resume`.
 * The chosen hat consumes every pending event that routes to it; events routing to other hats stay
 * queued; the rest are dropped. Hats at `max_activations` are skipped and, when a pending event
 * triggers them, listed in `exhausted`. When nothing routes (or there are no hats), every pending
 * event goes to solo/coordinator mode.
 */
export function selectHat(
  hats: RalphConfig['hats'],
  pending: readonly PendingEvent[],
  opts: { activations: Record<string, number> },
): HatSelection {
  const entries = Object.entries(hats);
  const available = entries.filter(([id, hat]) => !isExhausted(id, hat, opts.activations));
  const exhausted = entries
    .filter(
      ([id, hat]) =>
        isExhausted(id, hat, opts.activations) &&
        pending.some((e) => matchSpecificity(hat, e.topic) !== undefined),
    )
    .map(([id]) => id);

  const routes = pending.map((e) => routeTopic(available, e.topic));
  const routable = (system: boolean) =>
    pending.findIndex((e, i) => routes[i] !== null && SYSTEM_TOPICS.includes(e.topic) === system);
  const progressIndex = routable(false);
  const first = progressIndex >= 0 ? progressIndex : routable(true);
  if (first < 0) {
    return { hatId: null, hat: null, consumed: [...pending], remaining: [], unmatched: [], exhausted };
  }

  const hatId = routes[first]!;
  const consumed: PendingEvent[] = [];
  const remaining: PendingEvent[] = [];
  const unmatched: PendingEvent[] = [];
  pending.forEach((event, i) => {
    const route = routes[i];
    (route === hatId ? consumed : route === null ? unmatched : remaining).push(event);
  });
  return { hatId, hat: hats[hatId]!, consumed, remaining, unmatched, exhausted };
}
