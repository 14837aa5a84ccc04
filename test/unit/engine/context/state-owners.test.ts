import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { noteTopics, queueEvents, setQueue } from '../../../../src/engine/context/event-queue.ts';
import {
  countFinished,
  countPark,
  noteLimitWarnings,
  recordSpend,
  resetParks,
} from '../../../../src/engine/context/spend-and-limits.ts';
import type { LimitsPart } from '../../../../src/state/loop-state/shape.ts';

const zeroTokens = { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 };
const limits = (): LimitsPart => ({
  iterations: 0,
  consecutive_failures: 0,
  cost_usd: 0,
  tokens: { ...zeroTokens },
  elapsed_ms: 0,
});
const event = (topic: string) => ({ topic, payload: null, source: 'agent', iteration: 1 });

describe('the owners of the loop state', () => {
  it('counts each iteration number once, however often it is re-run, and a failure streak until a success', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ number: fc.integer({ min: 1, max: 50 }), failed: fc.boolean() })),
        (runs) => {
          const state = limits();
          for (const r of runs) countFinished(state, r.number, r.failed);
          expect(state.iterations).toBe(Math.max(0, ...runs.map((r) => r.number)));
          const lastSuccess = runs.map((r) => r.failed).lastIndexOf(false);
          expect(state.consecutive_failures).toBe(runs.length - 1 - lastSuccess);
        },
      ),
    );
  });

  it('adds spend to the totals and counts parks by kind until an iteration finishes', () => {
    const state = limits();
    recordSpend(state, { ...zeroTokens, input: 3, total: 3 }, 0.5);
    recordSpend(state, { ...zeroTokens, output: 2, total: 2 }, 0.25);
    expect(state.tokens).toMatchObject({ input: 3, output: 2, total: 5 });
    expect(state.cost_usd).toBe(0.75);
    countPark(state, true);
    countPark(state, false);
    countPark(state, false);
    expect(state.parks).toEqual({ rateLimit: 2, transient: 1 });
    resetParks(state);
    expect(state.parks).toEqual({ rateLimit: 0, transient: 0 });
  });

  it('opens the limit-warning book at the first boundary and keeps the highest percent given', () => {
    const state = limits();
    noteLimitWarnings(state, []);
    expect(state.limit_warnings).toEqual({});
    noteLimitWarnings(state, [{ limit: 'cost', percent: 50 }]);
    noteLimitWarnings(state, [
      { limit: 'cost', percent: 80 },
      { limit: 'tokens', percent: 50 },
    ]);
    expect(state.limit_warnings).toEqual({ cost: 80, tokens: 50 });
  });

  it('keeps each topic seen once, in the order first seen, and queues after what waits', () => {
    const state = {
      pending_events: [event('a')],
      events_offset: 0,
      malformed_streak: 0,
      seen_topics: ['a'],
      idle: false,
    };
    noteTopics(state, [event('b'), event('a'), event('c'), event('b')]);
    expect(state.seen_topics).toEqual(['a', 'b', 'c']);
    queueEvents(state, [event('b')]);
    expect(state.pending_events.map((e) => e.topic)).toEqual(['a', 'b']);
    setQueue(state, []);
    expect(state.pending_events).toEqual([]);
  });
});
