import type { HatConfig, RalphConfig } from '../../../config/schema.ts';
import { routeTopic } from '../../../routing/select-hat.ts';
import type { PendingEvent } from '../../../state/loop-state.ts';

// Agent waves (docs/guide/agent-waves.md), the pure part: which iteration is a wave, its members,
// how many run at once, its deadlines, and how the members' results join into one batch.

/** One agent of a wave: the event it works on, by its place in the batch. */
export interface WaveMember {
  index: number;
  event: PendingEvent;
}

export interface WavePlan {
  members: WaveMember[];
  /** How many members run at once (`hats.<hat>.concurrency`, at most the members' count). */
  concurrency: number;
  /** Each member's own deadline (ms): the hat's `timeout`, else its `aggregate.timeout`, else the iteration timeout. */
  memberMs: number;
  /** The whole wave's deadline (ms): `aggregate.timeout` of the hat collecting its results; undefined: none. */
  waveMs: number | undefined;
}

/**
 * The wave an iteration of `hat` runs, or undefined when one agent runs as usual: a hat with
 * `concurrency` above 1 that consumed two or more events runs one member per event.
 */
export function planWave(
  config: Pick<RalphConfig, 'hats' | 'event_loop'>,
  hatId: string | null,
  consumed: readonly PendingEvent[],
): WavePlan | undefined {
  const hat = hatId === null ? undefined : config.hats[hatId];
  const limit = hat?.concurrency ?? 1;
  if (!hat || limit <= 1 || consumed.length < 2) return undefined;
  const aggregateS = aggregateTimeout(config.hats, hatId as string, hat);
  return {
    members: consumed.map((event, index) => ({ index, event })),
    concurrency: Math.min(limit, consumed.length),
    memberMs: (hat.timeout ?? aggregateS ?? config.event_loop.iteration_timeout_seconds) * 1000,
    waveMs: aggregateS === undefined ? undefined : aggregateS * 1000,
  };
}

/**
 * `aggregate.timeout` for a wave of `hatId`: its own, else that of the first hat (config order)
 * its published topics route to that has one: the hat waiting for the results.
 */
export function aggregateTimeout(
  hats: RalphConfig['hats'],
  hatId: string,
  hat: HatConfig,
): number | undefined {
  if (hat.aggregate) return hat.aggregate.timeout;
  const entries = Object.entries(hats).filter(([id]) => id !== hatId);
  for (const topic of hat.publishes) {
    const target = routeTopic(entries, topic);
    const timeout = target === null ? undefined : hats[target]?.aggregate?.timeout;
    if (timeout !== undefined) return timeout;
  }
  return undefined;
}

/**
 * Runs `run` for every item, never more than `limit` at once, starting them in order; resolves to
 * the results in item order once all have settled. `skip` is asked before each start: a wave being
 * stopped starts no more members (their result is `skipped(item)`).
 */
export async function runBounded<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
  skip: { now(): boolean; result(item: T): R } = { now: () => false, result: () => undefined as R },
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      const item = items[i] as T;
      results[i] = skip.now() ? skip.result(item) : await run(item);
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane);
  await Promise.all(lanes);
  return results;
}

/** A result a wave member published, with the member it came from. */
export interface MemberEvent extends PendingEvent {
  member: number;
}

/**
 * The wave's results as one batch: every member's events once, members in index order, each
 * member's events in the order it published them.
 */
export function joinWaveResults(
  members: readonly { index: number; published: readonly PendingEvent[] }[],
): MemberEvent[] {
  return [...members]
    .sort((a, b) => a.index - b.index)
    .flatMap((m) => m.published.map((e) => ({ ...e, member: m.index })));
}

/** The block each member's prompt opens with: who it is in the wave and how it reports. */
export function waveBlock(member: WaveMember, total: number, publishes: readonly string[]): string {
  const topics = publishes.length > 0 ? publishes.map((t) => `\`${t}\``).join(', ') : 'your result topic';
  return [
    `## Wave member ${member.index + 1} of ${total}`,
    `You are one of ${total} agents working at the same time, one per event; yours is the one event below.`,
    'Work only on it. Publish your result with `ralph emit <topic> "<result>"` (' +
      topics +
      '): Ralph hands every member’s results on together once the whole wave has ended.',
    '`ralph wave emit` is refused inside a wave.',
  ].join('\n');
}
