import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { hatSchema } from '../../../src/config/schema/hats.ts';
import type { HatConfig, RalphConfig } from '../../../src/config/schema.ts';
import { topicMatches, triggerSpecificity } from '../../../src/config/topic-match.ts';
import { SYSTEM_TOPICS, selectHat } from '../../../src/routing/select-hat.ts';
import type { PendingEvent } from '../../../src/state/loop-state.ts';

const seedDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/seed-000');
const seedHats = loadConfig({ file: join(seedDir, 'ralph.yml'), cwd: seedDir }).config.hats;
const none = { activations: {} };

function ev(topic: string, iteration: number | null = 1, source = 'agent'): PendingEvent {
  return { topic, payload: null, source, iteration };
}

function hats(spec: Record<string, { triggers: string[]; max_activations?: number }>): RalphConfig['hats'] {
  return Object.fromEntries(Object.entries(spec).map(([id, h]) => [id, hatSchema.parse(h)]));
}

describe('selectHat: seed 000', () => {
  it('board.scan (the starting event) activates the board scanner', () => {
    const r = selectHat(seedHats, [ev('board.scan', null, 'starting_event')], none);
    expect(r.hatId).toBe('board_scanner');
    expect(r.hat).toBe(seedHats.board_scanner);
    expect(r.consumed.map((e) => e.topic)).toEqual(['board.scan']);
  });

  it('the scanner dispatches: work.propose → proposal_writer, work.finish → finisher', () => {
    expect(selectHat(seedHats, [ev('work.propose')], none).hatId).toBe('proposal_writer');
    expect(selectHat(seedHats, [ev('work.finish')], none).hatId).toBe('finisher');
  });

  it('a stale work.propose from an earlier iteration beats task.resume (real progress first)', () => {
    // Documented behaviour: priority is by topic class, not by age. The stale work.propose (iteration 3)
    // is real progress, so proposal_writer runs now and only sees it; task.resume stays queued for the
    // board scanner, which runs next. The seed's scanner instructions ("ignore stale pending events")
    // assume the opposite; the engine avoids the pair by dropping events published with a completion.
    const stale = ev('work.propose', 3);
    const resume = ev('task.resume', 5, 'persistent');
    const r = selectHat(seedHats, [stale, resume], none);
    expect(r.hatId).toBe('proposal_writer');
    expect(r.consumed).toEqual([stale]);
    expect(r.remaining).toEqual([resume]);
    expect(r.unmatched).toEqual([]);
    // The order in the queue does not change that.
    expect(selectHat(seedHats, [resume, stale], none).hatId).toBe('proposal_writer');
    // Next iteration: only task.resume is left, and the board scanner takes it.
    expect(selectHat(seedHats, r.remaining, none).hatId).toBe('board_scanner');
  });

  it('the scanner consumes every event routed to it, task.resume included', () => {
    const r = selectHat(seedHats, [ev('board.rescan'), ev('task.resume')], none);
    expect(r.hatId).toBe('board_scanner');
    expect(r.consumed.map((e) => e.topic)).toEqual(['board.rescan', 'task.resume']);
    expect(r.remaining).toEqual([]);
  });

  it('an event no hat triggers on is dropped once another event routes', () => {
    const r = selectHat(seedHats, [ev('LOOP_COMPLETE'), ev('board.rescan')], none);
    expect(r.hatId).toBe('board_scanner');
    expect(r.unmatched.map((e) => e.topic)).toEqual(['LOOP_COMPLETE']);
  });

  it('nothing routable: coordinator mode takes every pending event', () => {
    const pending = [ev('LOOP_COMPLETE'), ev('misc')];
    expect(selectHat(seedHats, pending, none)).toEqual({
      hatId: null,
      hat: null,
      consumed: pending,
      remaining: [],
      unmatched: [],
      exhausted: [],
    });
  });
});

describe('selectHat: rules', () => {
  it('no hats: solo mode consumes everything', () => {
    const pending = [ev('a'), ev('task.start', null)];
    const r = selectHat({}, pending, none);
    expect(r).toMatchObject({ hatId: null, hat: null, consumed: pending, remaining: [], unmatched: [] });
  });

  it('no pending events: no hat', () => {
    expect(selectHat(seedHats, [], none).hatId).toBeNull();
  });

  it('among events of the same priority, the earliest pending wins', () => {
    const r = selectHat(seedHats, [ev('work.finish'), ev('work.propose')], none);
    expect(r.hatId).toBe('finisher');
    expect(r.remaining.map((e) => e.topic)).toEqual(['work.propose']);
  });

  it('task.start routes when nothing else does', () => {
    const h = hats({ planner: { triggers: ['task.start'] }, builder: { triggers: ['plan.ready'] } });
    expect(selectHat(h, [ev('task.start', null), ev('other')], none).hatId).toBe('planner');
    expect(selectHat(h, [ev('task.start', null), ev('plan.ready')], none).hatId).toBe('builder');
  });

  it('an exact trigger beats `work.*`, which beats `*`, whatever the config order', () => {
    const h = hats({
      anything: { triggers: ['*'] },
      work: { triggers: ['work.*'] },
      done: { triggers: ['work.done'] },
    });
    expect(selectHat(h, [ev('work.done')], none).hatId).toBe('done');
    expect(selectHat(h, [ev('work.started')], none).hatId).toBe('work');
    expect(selectHat(h, [ev('build.failed')], none).hatId).toBe('anything');
    // The catch-all takes the earliest event but leaves work.done to its own hat.
    const r = selectHat(h, [ev('build.failed'), ev('work.done')], none);
    expect(r.hatId).toBe('anything');
    expect(r.remaining.map((e) => e.topic)).toEqual(['work.done']);
  });

  it('equally specific triggers: the first hat in config order', () => {
    const h = hats({ first: { triggers: ['a.*'] }, second: { triggers: ['*.b'] } });
    expect(selectHat(h, [ev('a.b')], none).hatId).toBe('first');
  });

  it('a hat at max_activations is skipped and reported as exhausted', () => {
    const h = hats({
      writer: { triggers: ['work.propose'], max_activations: 2 },
      scanner: { triggers: ['task.resume'] },
    });
    const pending = [ev('work.propose'), ev('task.resume')];
    expect(selectHat(h, pending, { activations: { writer: 1 } })).toMatchObject({
      hatId: 'writer',
      exhausted: [],
    });
    const r = selectHat(h, pending, { activations: { writer: 2 } });
    expect(r.hatId).toBe('scanner');
    expect(r.exhausted).toEqual(['writer']);
    expect(r.unmatched.map((e) => e.topic)).toEqual(['work.propose']);
  });

  it('an exhausted hat with no pending event for it is not reported', () => {
    const h = hats({
      writer: { triggers: ['work.propose'], max_activations: 1 },
      scanner: { triggers: ['task.resume'] },
    });
    expect(selectHat(h, [ev('task.resume')], { activations: { writer: 1 } }).exhausted).toEqual([]);
  });

  it('an exhausted hat falls through to a less specific hat', () => {
    const h = hats({ fallback: { triggers: ['*'] }, done: { triggers: ['work.done'], max_activations: 1 } });
    const r = selectHat(h, [ev('work.done')], { activations: { done: 1 } });
    expect(r).toMatchObject({ hatId: 'fallback', exhausted: ['done'] });
  });
});

// --- properties ---------------------------------------------------------------------------------

const TOPICS = [
  'task.start',
  'task.resume',
  'work.propose',
  'work.finish',
  'board.scan',
  'build.done',
  'misc',
];
const triggerArb = fc.constantFrom(...TOPICS, 'work.*', '*.done', '*', 'task.*');
const hatsArb = fc
  .array(
    fc.record({
      triggers: fc.uniqueArray(triggerArb, { maxLength: 3 }),
      max_activations: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    }),
    { maxLength: 4 },
  )
  .map((list) => hats(Object.fromEntries(list.map((h, i) => [`h${i}`, h]))));
const pendingArb = fc.array(
  fc.record({
    topic: fc.constantFrom(...TOPICS),
    payload: fc.constant(null),
    source: fc.constantFrom('agent', 'persistent', 'starting_event'),
    iteration: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
  }),
  { maxLength: 8 },
);
const activationsArb = fc.dictionary(fc.constantFrom('h0', 'h1', 'h2', 'h3'), fc.integer({ min: 0, max: 4 }));

const available = (h: RalphConfig['hats'], activations: Record<string, number>) =>
  Object.entries(h).filter(
    ([id, hat]) => hat.max_activations === undefined || (activations[id] ?? 0) < hat.max_activations,
  );
const triggersOn = (hat: HatConfig, topic: string) => hat.triggers.some((t) => topicMatches(t, topic));
const bestSpecificity = (hat: HatConfig, topic: string) =>
  Math.max(...hat.triggers.filter((t) => topicMatches(t, topic)).map(triggerSpecificity));

describe('selectHat: properties', () => {
  it('a hat is only selected for events one of its triggers matches, and never when exhausted', () => {
    fc.assert(
      fc.property(hatsArb, pendingArb, activationsArb, (h, pending, activations) => {
        const r = selectHat(h, pending, { activations });
        if (r.hatId === null) return;
        expect(r.consumed.length).toBeGreaterThan(0);
        for (const e of r.consumed) expect(triggersOn(r.hat!, e.topic)).toBe(true);
        expect(available(h, activations).map(([id]) => id)).toContain(r.hatId);
        expect(r.exhausted).not.toContain(r.hatId);
      }),
    );
  });

  it('task.start/task.resume never win over another routable event', () => {
    fc.assert(
      fc.property(hatsArb, pendingArb, activationsArb, (h, pending, activations) => {
        const live = available(h, activations);
        const progress = pending.find(
          (e) => !SYSTEM_TOPICS.includes(e.topic) && live.some(([, hat]) => triggersOn(hat, e.topic)),
        );
        const r = selectHat(h, pending, { activations });
        if (progress === undefined) return;
        // The earliest routable progress event decides the hat, and that hat gets it.
        expect(r.consumed).toContain(progress);
        expect(r.consumed.some((e) => !SYSTEM_TOPICS.includes(e.topic))).toBe(true);
      }),
    );
  });

  it('the chosen hat is the most specific for its routing event, then the first in config order', () => {
    fc.assert(
      fc.property(hatsArb, pendingArb, activationsArb, (h, pending, activations) => {
        const r = selectHat(h, pending, { activations });
        if (r.hatId === null) return;
        const live = available(h, activations);
        for (const e of r.consumed) {
          const mine = bestSpecificity(r.hat!, e.topic);
          const index = live.findIndex(([id]) => id === r.hatId);
          live.forEach(([id, hat], i) => {
            if (id === r.hatId || !triggersOn(hat, e.topic)) return;
            const theirs = bestSpecificity(hat, e.topic);
            expect(theirs <= mine).toBe(true);
            if (theirs === mine) expect(i).toBeGreaterThan(index);
          });
        }
      }),
    );
  });

  it('is deterministic and does not mutate its inputs', () => {
    fc.assert(
      fc.property(hatsArb, pendingArb, activationsArb, (h, pending, activations) => {
        const before = structuredClone({ h, pending, activations });
        const a = selectHat(h, pending, { activations });
        const b = selectHat(structuredClone(h), structuredClone(pending), {
          activations: { ...activations },
        });
        expect(b).toEqual(a);
        expect({ h, pending, activations }).toEqual(before);
      }),
    );
  });

  it('consumed, remaining and unmatched partition the pending events (as multisets)', () => {
    fc.assert(
      fc.property(hatsArb, pendingArb, activationsArb, (h, pending, activations) => {
        const r = selectHat(h, pending, { activations });
        const out = [...r.consumed, ...r.remaining, ...r.unmatched];
        expect(out).toHaveLength(pending.length);
        // Each pending object appears exactly once (identity), so the lists are disjoint and complete.
        for (const e of pending)
          expect(out.filter((x) => x === e)).toHaveLength(pending.filter((x) => x === e).length);
        if (r.hatId === null) expect(r.consumed).toEqual(pending);
        const live = available(h, activations);
        for (const e of r.remaining)
          expect(live.some(([id, hat]) => id !== r.hatId && triggersOn(hat, e.topic))).toBe(true);
        for (const e of r.unmatched) expect(live.some(([, hat]) => triggersOn(hat, e.topic))).toBe(false);
      }),
    );
  });

  it('exhausted lists exactly the hats at max_activations that a pending event triggers', () => {
    fc.assert(
      fc.property(hatsArb, pendingArb, activationsArb, (h, pending, activations) => {
        const live = new Set(available(h, activations).map(([id]) => id));
        const expected = Object.entries(h)
          .filter(([id, hat]) => !live.has(id) && pending.some((e) => triggersOn(hat, e.topic)))
          .map(([id]) => id);
        expect(selectHat(h, pending, { activations }).exhausted).toEqual(expected);
      }),
    );
  });
});
