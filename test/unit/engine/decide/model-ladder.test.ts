import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKEND_DEFINITIONS } from '../../../../src/backends/registry.ts';
import { configSchema } from '../../../../src/config/schema.ts';
import {
  firstRung,
  type LadderOutcome,
  type LadderSpec,
  ladderFor,
  MAX_LADDER_SCOPES,
  modelChoice,
  nextRung,
  withRung,
} from '../../../../src/engine/decide/model-ladder.ts';
import { ladderScope } from '../../../../src/engine/iteration/model-rung.ts';
import type { LadderRung } from '../../../../src/state/loop-state.ts';

const spec = (models: string[], escalateAfter: number, descendAfter?: number): LadderSpec => ({
  owner: 'cli',
  models,
  escalateAfter,
  descendAfter,
});

const arbSpec = fc
  .tuple(
    fc.integer({ min: 1, max: 5 }),
    fc.integer({ min: 1, max: 4 }),
    fc.option(fc.integer({ min: 1, max: 4 })),
  )
  .map(([n, up, down]) =>
    spec(
      Array.from({ length: n }, (_, i) => `m${i}`),
      up,
      down ?? undefined,
    ),
  );
const arbOutcome: fc.Arbitrary<LadderOutcome> = fc.record({
  failed: fc.boolean(),
  stuck: fc.boolean(),
  gateFailed: fc.boolean(),
  completionRejected: fc.boolean(),
});
const clean: LadderOutcome = { failed: false, stuck: false, gateFailed: false, completionRejected: false };
const failed: LadderOutcome = { ...clean, failed: true };

describe('nextRung (the ladder decision)', () => {
  it('never leaves the ladder, whatever happens', () => {
    fc.assert(
      fc.property(arbSpec, fc.array(arbOutcome, { maxLength: 40 }), (s, outcomes) => {
        let at = firstRung();
        for (const o of outcomes) {
          at = nextRung(s, at, o);
          expect(at.rung).toBeGreaterThanOrEqual(0);
          expect(at.rung).toBeLessThan(s.models.length);
          expect(modelChoice(s, at, 'run').model).toBe(s.models[at.rung]);
        }
      }),
    );
  });

  it('moves up only on the listed signals, and down only with descend_after after clean iterations', () => {
    fc.assert(
      fc.property(arbSpec, fc.array(arbOutcome, { maxLength: 40 }), (s, outcomes) => {
        let at = firstRung();
        for (const o of outcomes) {
          const next = nextRung(s, at, o);
          const signalled = o.failed || o.stuck || o.gateFailed || o.completionRejected;
          if (next.rung > at.rung) expect(signalled).toBe(true);
          if (next.rung < at.rung) {
            expect(signalled).toBe(false);
            expect(s.descendAfter).toBeDefined();
          }
          expect(Math.abs(next.rung - at.rung)).toBeLessThanOrEqual(1);
          at = next;
        }
      }),
    );
  });

  it('a stuck signature, a failed gate or a rejected completion moves up at once', () => {
    for (const signal of ['stuck', 'gateFailed', 'completionRejected'] as const) {
      const next = nextRung(spec(['a', 'b'], 5), firstRung(), { ...clean, [signal]: true });
      expect(next.rung).toBe(1);
    }
  });

  it('escalate_after failures in a row move up one rung; a clean iteration between them resets the count', () => {
    const s = spec(['cheap', 'mid', 'strong'], 2);
    let at = nextRung(s, firstRung(), failed);
    expect(at.rung).toBe(0);
    at = nextRung(s, at, clean);
    at = nextRung(s, at, failed);
    expect(at.rung).toBe(0);
    at = nextRung(s, at, failed);
    expect(at).toMatchObject({
      rung: 1,
      reason: 'up from cheap after 2 failed iterations in a row (escalate_after 2)',
    });
  });

  it('stays down the ladder by default, and goes back down after descend_after clean iterations', () => {
    const up: LadderRung = { rung: 1, failures: 0, successes: 0, reason: 'x' };
    let stay = up;
    for (let i = 0; i < 10; i++) stay = nextRung(spec(['a', 'b'], 1), stay, clean);
    expect(stay.rung).toBe(1);
    const s = spec(['a', 'b'], 1, 2);
    expect(nextRung(s, up, clean).rung).toBe(1);
    expect(nextRung(s, nextRung(s, up, clean), clean).rung).toBe(0);
  });
});

describe('ladderFor and the rung keys', () => {
  const config = configSchema.parse({
    cli: { backend: 'claude', models: ['haiku', 'opus'], escalate_after: 3 },
    hats: {
      planner: { triggers: ['plan'], models: ['sonnet', 'opus'], descend_after: 2 },
      builder: { triggers: ['build'] },
      reviewer: { triggers: ['review'], backend: 'codex' },
    },
  });
  it("a hat's own models, else cli.models on the loop backend, else none", () => {
    expect(ladderFor(config, 'planner', config.hats.planner ?? null)).toEqual({
      owner: 'hats.planner',
      models: ['sonnet', 'opus'],
      escalateAfter: 3,
      descendAfter: 2,
    });
    expect(ladderFor(config, 'builder', config.hats.builder ?? null)?.owner).toBe('cli');
    expect(ladderFor(config, null, null)?.models).toEqual(['haiku', 'opus']);
    expect(ladderFor(config, 'reviewer', config.hats.reviewer ?? null)).toBeUndefined();
  });

  it('the scope is the milestone, else the task, else the run', () => {
    expect(ladderScope(undefined, 'task-7')).toBe('task:task-7');
    expect(ladderScope(undefined, null)).toBe('run');
  });

  it('keeps the newest scopes only', () => {
    let rungs = {};
    for (let i = 0; i < MAX_LADDER_SCOPES + 5; i++) rungs = withRung(rungs, `cli@task:t${i}`, firstRung());
    expect(Object.keys(rungs)).toHaveLength(MAX_LADDER_SCOPES);
    expect(Object.keys(rungs).at(-1)).toBe(`cli@task:t${MAX_LADDER_SCOPES + 4}`);
  });

  it('every agent CLI definition names its model flag; custom has none', () => {
    const flags = Object.fromEntries(BACKEND_DEFINITIONS.map((d) => [d.name, d.modelFlag]));
    expect(flags).toMatchObject({
      claude: '--model',
      codex: '-m',
      gemini: '-m',
      opencode: '-m',
      fake: '--model',
    });
    expect(flags.custom).toBeUndefined();
  });
});
