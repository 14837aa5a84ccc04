import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOOK_PHASE_EVENTS, hooksSchema } from '../../../../src/config/schema/hooks.ts';
import {
  hookDisposition,
  hookFailure,
  hookPayload,
  hooksAt,
  mergeMetadata,
  parseMutation,
  phaseVerdict,
  publishesPlan,
  terminationPhases,
} from '../../../../src/engine/hooks/hook-plan.ts';
import type { HookDisposition } from '../../../../src/observe/events/hook-events.ts';

const onError = fc.constantFrom('warn' as const, 'block' as const, 'suspend' as const);
const facts = fc.record({
  exitCode: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }),
  timedOut: fc.boolean(),
  spawnError: fc.option(fc.string(), { nil: undefined }),
  mutationError: fc.option(fc.string(), { nil: undefined }),
});
const disposition = fc.constantFrom<HookDisposition>('pass', 'warn', 'block', 'suspend');

describe('which hooks fire at a phase-event', () => {
  const config = hooksSchema.parse({
    enabled: true,
    defaults: { timeout_seconds: 7, max_output_bytes: 100, suspend_mode: 'retry_backoff' },
    events: {
      'pre.loop.start': [
        { name: 'a', command: ['a'], on_error: 'warn' },
        {
          name: 'b',
          command: ['b'],
          on_error: 'suspend',
          timeout_seconds: 2,
          max_output_bytes: 5,
          suspend_mode: 'wait_then_retry',
        },
      ],
    },
  });

  it('in declaration order, with the defaults filled in where the spec says nothing', () => {
    expect(
      hooksAt(config, 'pre.loop.start').map((h) => [h.name, h.timeoutMs, h.maxOutputBytes, h.suspendMode]),
    ).toEqual([
      ['a', 7000, 100, 'retry_backoff'],
      ['b', 2000, 5, 'wait_then_retry'],
    ]);
    expect(hooksAt(config, 'post.loop.start')).toEqual([]);
  });

  it('none at all while hooks.enabled is false, at any phase-event', () => {
    const off = { ...config, enabled: false };
    for (const phase of HOOK_PHASE_EVENTS) expect(hooksAt(off, phase)).toEqual([]);
  });
});

describe('a hook run’s disposition', () => {
  it('passes exactly when it started, was not timed out, exited 0 and its mutation output was fine', () => {
    fc.assert(
      fc.property(onError, facts, (on, run) => {
        const clean =
          run.spawnError === undefined &&
          !run.timedOut &&
          run.exitCode === 0 &&
          run.mutationError === undefined;
        expect(hookDisposition(on, run)).toBe(clean ? 'pass' : on);
        expect(hookFailure(run) === null).toBe(clean);
      }),
    );
  });

  it('names the failure: could not start, timed out, exit N, killed, the mutation error', () => {
    const ok = { exitCode: 0, timedOut: false, spawnError: undefined, mutationError: undefined };
    expect(hookFailure({ ...ok, spawnError: 'ENOENT' })).toBe('could not start: ENOENT');
    expect(hookFailure({ ...ok, exitCode: null, timedOut: true })).toBe('timed out');
    expect(hookFailure({ ...ok, exitCode: 3 })).toBe('exit 3');
    expect(hookFailure({ ...ok, exitCode: null })).toBe('killed');
    expect(hookFailure({ ...ok, mutationError: 'bad' })).toBe('bad');
  });
});

describe('a phase’s verdict', () => {
  it('the first block wins over any suspend; else the first suspend; else it goes on', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ disposition, id: fc.nat() })), (outcomes) => {
        const v = phaseVerdict(outcomes);
        const block = outcomes.find((o) => o.disposition === 'block');
        const suspend = outcomes.find((o) => o.disposition === 'suspend');
        if (block) expect(v).toEqual({ kind: 'block', outcome: block });
        else if (suspend) expect(v).toEqual({ kind: 'suspend', outcome: suspend });
        else expect(v).toEqual({ kind: 'go' });
      }),
    );
  });
});

describe('the metadata mutation contract', () => {
  it('takes exactly {"metadata": {…}} (whitespace around it allowed)', () => {
    expect(parseMutation('  {"metadata": {"a": 1, "b": {"c": [true]}}}\n')).toEqual({
      metadata: { a: 1, b: { c: [true] } },
    });
  });

  it('refuses anything else, saying what', () => {
    expect(parseMutation('nope')).toMatchObject({ error: expect.stringMatching(/not valid JSON/) });
    expect(parseMutation('[1]')).toEqual({ error: 'mutation payload must be a JSON object' });
    expect(parseMutation('{"metadata": {}, "prompt": "x"}')).toMatchObject({
      error: expect.stringMatching(/found keys: metadata, prompt/),
    });
    expect(parseMutation('{"events": []}')).toMatchObject({
      error: expect.stringMatching(/only \{"metadata"/),
    });
    expect(parseMutation('{"metadata": 3}')).toEqual({
      error: "mutation payload key 'metadata' must contain a JSON object",
    });
  });

  it('never throws, whatever the hook printed', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (s) => void parseMutation(s)));
  });

  it('keeps each hook’s object under hook_metadata.<name>: the last run replaces it, others stay', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.dictionary(fc.string(), fc.integer())), {
          maxLength: 8,
        }),
        (runs) => {
          let acc = {};
          for (const [name, m] of runs) acc = mergeMetadata(acc, name, m);
          const last = new Map(runs);
          expect(acc).toEqual(runs.length === 0 ? {} : { hook_metadata: Object.fromEntries(last) });
        },
      ),
    );
  });
});

describe('where the pairs fire', () => {
  it('a completed run (or metric target) fires loop.complete, every other end loop.error', () => {
    expect(terminationPhases('completed')).toEqual(['pre.loop.complete', 'post.loop.complete']);
    expect(terminationPhases('metric_target')).toEqual(['pre.loop.complete', 'post.loop.complete']);
    for (const reason of ['max_iterations', 'cancelled', 'hook_blocked', 'error'] as const)
      expect(terminationPhases(reason)).toEqual(['pre.loop.error', 'post.loop.error']);
  });

  it('plan.created fires for an iteration that published a plan.* topic', () => {
    expect(publishesPlan(['build.done', 'plan.ready'])).toBe(true);
    expect(publishesPlan(['planning', 'build.plan'])).toBe(false);
  });
});

describe('the payload on stdin', () => {
  it('is ralph-orchestrator’s schema_version 1, split phase and event, ralph as the solo hat', () => {
    const p = hookPayload({
      phaseEvent: 'pre.iteration.start',
      at: new Date(0),
      runId: 'r1',
      workspace: '/w',
      pid: 9,
      iteration: 3,
      maxIterations: 10,
      activeHat: null,
      selectedHat: null,
      terminationReason: null,
      humanInteract: null,
      metadata: { hook_metadata: { t: { id: 1 } } },
    });
    expect(p).toEqual({
      schema_version: 1,
      phase: 'pre',
      event: 'iteration.start',
      phase_event: 'pre.iteration.start',
      timestamp: '1970-01-01T00:00:00.000Z',
      loop: { id: 'r1', is_primary: true, workspace: '/w', repo_root: '/w', pid: 9 },
      iteration: { current: 3, max: 10 },
      context: {
        active_hat: 'ralph',
        selected_hat: null,
        selected_task: null,
        termination_reason: null,
        human_interact: null,
      },
      metadata: { accumulated: { hook_metadata: { t: { id: 1 } } } },
    });
  });
});
