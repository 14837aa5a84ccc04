import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hatSchema } from '../../../../../src/config/schema/hats.ts';
import type { RalphConfig } from '../../../../../src/config/schema.ts';
import {
  aggregateTimeout,
  joinWaveResults,
  planWave,
  runBounded,
} from '../../../../../src/engine/iteration/wave/wave-plan.ts';
import type { PendingEvent } from '../../../../../src/state/loop-state.ts';

const ev = (topic: string, payload: unknown = null): PendingEvent => ({
  topic,
  payload,
  source: 'agent',
  iteration: 1,
});

function config(hats: Record<string, Record<string, unknown>>): Pick<RalphConfig, 'hats' | 'event_loop'> {
  return {
    hats: Object.fromEntries(Object.entries(hats).map(([id, h]) => [id, hatSchema.parse(h)])),
    event_loop: { iteration_timeout_seconds: 1800 } as RalphConfig['event_loop'],
  };
}

const REVIEW = {
  reviewer: { triggers: ['review.perspective'], publishes: ['review.done'], concurrency: 3 },
  synthesizer: { triggers: ['review.done'], aggregate: { mode: 'wait_for_all', timeout: 300 } },
};

describe('planWave: which iteration is a wave', () => {
  it('a hat with concurrency that consumed several events runs one member per event, at most N at once', () => {
    const consumed = [
      ev('review.perspective', 'a'),
      ev('review.perspective', 'b'),
      ev('review.perspective', 'c'),
    ];
    const plan = planWave(
      config({ ...REVIEW, reviewer: { ...REVIEW.reviewer, concurrency: 2 } }),
      'reviewer',
      consumed,
    );
    expect(plan?.members.map((m) => [m.index, m.event.payload])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
    expect(plan?.concurrency).toBe(2);
  });

  it('is no wave for one event, for a hat without concurrency (or 1), or in solo mode', () => {
    const two = [ev('review.perspective'), ev('review.perspective')];
    expect(planWave(config(REVIEW), 'reviewer', [ev('review.perspective')])).toBeUndefined();
    expect(planWave(config({ r: { triggers: ['x'] } }), 'r', two)).toBeUndefined();
    expect(planWave(config({ r: { triggers: ['x'], concurrency: 1 } }), 'r', two)).toBeUndefined();
    expect(planWave(config(REVIEW), null, two)).toBeUndefined();
  });

  it("times out the wave by the collecting hat's aggregate.timeout; a member by the hat's timeout first", () => {
    const two = [ev('review.perspective'), ev('review.perspective')];
    expect(planWave(config(REVIEW), 'reviewer', two)).toMatchObject({ memberMs: 300_000, waveMs: 300_000 });
    const own = config({ ...REVIEW, reviewer: { ...REVIEW.reviewer, timeout: 600 } });
    expect(planWave(own, 'reviewer', two)).toMatchObject({ memberMs: 600_000, waveMs: 300_000 });
    const none = config({ reviewer: REVIEW.reviewer, synthesizer: { triggers: ['review.done'] } });
    expect(planWave(none, 'reviewer', two)).toMatchObject({ memberMs: 1_800_000, waveMs: undefined });
  });

  it("reads aggregate on the wave's hat itself before the collecting hat's", () => {
    const c = config({ ...REVIEW, reviewer: { ...REVIEW.reviewer, aggregate: { timeout: 20 } } });
    expect(aggregateTimeout(c.hats, 'reviewer', c.hats.reviewer!)).toBe(20);
  });
});

describe('runBounded: the members at most N at once', () => {
  it('never runs more than the limit at once, runs every item once, results in item order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 6 }),
        async (delays, limit) => {
          let running = 0;
          let most = 0;
          const started: number[] = [];
          const results = await runBounded(
            delays.map((d, i) => ({ d, i })),
            limit,
            async ({ d, i }) => {
              started.push(i);
              running++;
              most = Math.max(most, running);
              for (let k = 0; k < d; k++) await Promise.resolve();
              running--;
              return i * 10;
            },
          );
          expect(most).toBeLessThanOrEqual(limit);
          if (delays.length > 0) expect(most).toBe(Math.min(limit, delays.length));
          expect(started).toEqual(delays.map((_, i) => i));
          expect(results).toEqual(delays.map((_, i) => i * 10));
        },
      ),
    );
  });

  it('starts no item once told to stop, giving its skipped result', async () => {
    let stop = false;
    const results = await runBounded(
      [1, 2, 3, 4],
      1,
      async (n) => {
        if (n === 2) stop = true;
        return `ran ${n}`;
      },
      { now: () => stop, result: (n) => `skipped ${n}` },
    );
    expect(results).toEqual(['ran 1', 'ran 2', 'skipped 3', 'skipped 4']);
  });
});

describe('joinWaveResults: the batch the collecting hat gets', () => {
  it("holds every member's events exactly once, members in index order, each member's in its order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }), { maxLength: 8 }).chain((members) =>
          fc.shuffledSubarray(
            members.map((payloads, index) => ({ index, payloads })),
            { minLength: members.length, maxLength: members.length },
          ),
        ),
        (shuffled) => {
          const joined = joinWaveResults(
            shuffled.map((m) => ({
              index: m.index,
              published: m.payloads.map((p, k) => ev('review.done', `${m.index}:${k}:${p}`)),
            })),
          );
          const expected = [...shuffled]
            .sort((a, b) => a.index - b.index)
            .flatMap((m) => m.payloads.map((p, k) => ({ member: m.index, payload: `${m.index}:${k}:${p}` })));
          expect(joined.map((e) => ({ member: e.member, payload: e.payload }))).toEqual(expected);
        },
      ),
    );
  });
});
