import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HatConfig } from '../../../../src/config/schema.ts';
import {
  asksToComplete,
  completionReasons,
  decideEvents,
  type EventDecisionInput,
  eventSignature,
  MAX_RECOVERIES,
  wouldComplete,
} from '../../../../src/engine/decide/event-decisions.ts';
import type { PendingEvent } from '../../../../src/state/loop-state.ts';

const ev = (topic: string, payload: unknown = null, source = 'agent'): PendingEvent => ({
  topic,
  payload,
  source,
  iteration: 1,
});
const hat = (over: Partial<HatConfig> = {}): HatConfig => ({
  triggers: ['x'],
  publishes: [],
  instructions: '',
  extra_instructions: [],
  disallowed_tools: [],
  ...over,
});

const input = (over: Partial<EventDecisionInput> = {}): EventDecisionInput => ({
  iteration: 1,
  hatsMode: true,
  hatId: 'h',
  hat: hat(),
  succeeded: true,
  published: [],
  consumed: [],
  queued: [],
  promiseInOutput: false,
  completionPromise: 'LOOP_COMPLETE',
  persistent: false,
  requiredEvents: [],
  seenTopics: new Set(),
  openTasks: 0,
  recoveries: 0,
  ...over,
});

describe('decideEvents', () => {
  it('completes only when the promise is the last event', () => {
    expect(decideEvents(input({ published: [ev('a'), ev('LOOP_COMPLETE')] })).complete).toBe(true);
    const notLast = decideEvents(input({ published: [ev('LOOP_COMPLETE'), ev('a')] }));
    expect(notLast.complete).toBe(false);
    expect(notLast.pending.map((e) => e.topic)).toEqual(['a']);
  });

  it('completes on the output promise in solo mode', () => {
    expect(
      decideEvents(input({ hatsMode: false, hat: null, hatId: null, promiseInOutput: true })).complete,
    ).toBe(true);
    expect(decideEvents(input({ hatsMode: false, hat: null, hatId: null })).complete).toBe(false);
  });

  it('converts completion to an idle task.resume in persistent mode, dropping the cycle’s other events as stale', () => {
    const d = decideEvents(
      input({
        persistent: true,
        published: [ev('work.propose', 'x'), ev('LOOP_COMPLETE')],
        queued: [ev('old')],
      }),
    );
    expect(d.complete).toBe(false);
    expect(d.idle).toBe(true);
    expect(d.pending).toEqual([expect.objectContaining({ topic: 'task.resume', source: 'persistent' })]);
    expect(d.stale.map((e) => e.topic)).toEqual(['old', 'work.propose']);
  });

  it('injects default_publishes (which may itself complete)', () => {
    const d = decideEvents(input({ hat: hat({ default_publishes: 'LOOP_COMPLETE' }) }));
    expect(d.injected.map((e) => [e.topic, e.source])).toEqual([['LOOP_COMPLETE', 'default_publishes']]);
    expect(d.complete).toBe(true);
  });

  it('recovers at most MAX_RECOVERIES times in a row, then gives up', () => {
    let recoveries = 0;
    for (let i = 0; i < MAX_RECOVERIES; i++) {
      const d = decideEvents(input({ recoveries }));
      expect(d.giveUp).toBeUndefined();
      expect(d.pending.at(-1)).toMatchObject({ topic: 'task.resume', source: 'recovery' });
      recoveries = d.recoveries;
    }
    expect(decideEvents(input({ recoveries })).giveUp).toContain('never published an event');
    expect(decideEvents(input({ recoveries, published: [ev('a')] })).recoveries).toBe(0);
  });

  it('requeues what a failed iteration consumed', () => {
    const d = decideEvents(input({ succeeded: false, consumed: [ev('build.task')], queued: [ev('q')] }));
    expect(d.pending.map((e) => e.topic)).toEqual(['build.task', 'q']);
    expect(d.complete).toBe(false);
  });

  const topic = fc.constantFrom('a', 'b.c', 'task.resume', 'LOOP_COMPLETE', 'work.done');
  const decisionInput = fc.record({
    published: fc.array(
      topic.map((t) => ev(t)),
      { maxLength: 5 },
    ),
    promiseInOutput: fc.boolean(),
    persistent: fc.boolean(),
    requiredEvents: fc.subarray(['a', 'work.done']),
    seen: fc.subarray(['a', 'work.done', 'b.c']),
    openTasks: fc.nat(3),
    hatsMode: fc.boolean(),
    succeeded: fc.boolean(),
  });

  it('property: completion is never accepted while a gate (required events, open tasks) rejects it', () => {
    fc.assert(
      fc.property(decisionInput, (x) => {
        const seen = new Set([...x.seen, ...x.published.map((e) => e.topic)]);
        const d = decideEvents(input({ ...x, seenTopics: seen }));
        const gateRejects = x.openTasks > 0 || x.requiredEvents.some((t) => !seen.has(t));
        if (gateRejects) {
          expect(d.complete).toBe(false);
          expect(d.completion.accepted).toBe(false);
          if (d.completion.requested)
            expect(d.pending.at(-1)).toMatchObject({ topic: 'task.resume', source: 'completion_rejected' });
        }
        if (d.complete) expect(x.persistent).toBe(false);
        if (!x.succeeded) expect(d.complete || d.idle).toBe(false);
      }),
    );
  });

  it('property: persistent mode never completes, and an accepted completion always idles on task.resume alone', () => {
    fc.assert(
      fc.property(decisionInput, (x) => {
        const d = decideEvents(
          input({
            ...x,
            persistent: true,
            seenTopics: new Set([...x.seen, ...x.published.map((e) => e.topic)]),
          }),
        );
        expect(d.complete).toBe(false);
        if (d.completion.accepted) {
          expect(d.idle).toBe(true);
          expect(d.pending.map((e) => e.topic)).toEqual(['task.resume']);
        }
      }),
    );
  });

  it('property: its first steps say what the decision will: asksToComplete is completion.requested, wouldComplete is complete', () => {
    fc.assert(
      fc.property(
        decisionInput,
        fc.array(fc.constantFrom('the reviewer requested changes', 'a human did not approve'), {
          maxLength: 2,
        }),
        fc.nat(4),
        (x, blockers, recoveries) => {
          const i = input({
            ...x,
            blockers,
            recoveries,
            hat: hat({ default_publishes: x.hatsMode ? undefined : 'work.done' }),
            seenTopics: new Set([...x.seen, ...x.published.map((e) => e.topic)]),
          });
          const d = decideEvents(i);
          expect(asksToComplete(i)).toBe(d.completion.requested);
          expect(wouldComplete(i)).toBe(d.complete);
          if (d.completion.requested) expect(completionReasons(i)).toEqual(d.completion.reasons);
        },
      ),
    );
  });

  it('eventSignature distinguishes hats and payloads', () => {
    expect(eventSignature('a', [ev('x', 1)])).not.toBe(eventSignature('b', [ev('x', 1)]));
    expect(eventSignature('a', [ev('x', 1)])).not.toBe(eventSignature('a', [ev('x', 2)]));
    expect(eventSignature('a', [ev('x', 1)])).toBe(eventSignature('a', [ev('x', 1, 'tag')]));
  });
});
