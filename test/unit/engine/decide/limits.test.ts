import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AgentOutcome,
  type Counters,
  EXIT_FOR_REASON,
  judgeIteration,
  type Limits,
  limitReached,
  limitStop,
} from '../../../../src/engine/decide/limits.ts';
import { ExitCode } from '../../../../src/errors.ts';
import type { StopReason } from '../../../../src/observe/events.ts';

const limits: Limits = {
  maxIterations: 10,
  maxRuntimeMs: 60_000,
  maxCostUsd: 5,
  maxTokens: 100_000,
  maxConsecutiveFailures: 3,
};

const zero: Counters = { iterations: 0, elapsedMs: 0, costUsd: 0, tokens: 0, consecutiveFailures: 0 };

const ok: AgentOutcome = {
  exitCode: 0,
  signal: null,
  killedBy: null,
  spawnError: undefined,
  resultError: false,
  promiseSeen: false,
};

describe('EXIT_FOR_REASON', () => {
  it('maps every stop reason to the documented exit code', () => {
    const expected: Record<StopReason, number> = {
      completed: 0,
      cancelled: 0,
      metric_target: 0,
      max_iterations: 2,
      max_runtime: 2,
      max_cost: 2,
      max_tokens: 2,
      metric_patience: 2,
      consecutive_failures: 1,
      stale_loop: 1,
      no_events: 1,
      malformed_events: 1,
      iteration_timeout: 1,
      validation_failed: 1,
      push_failed: 1,
      health_check: 1,
      human_timeout: 1,
      no_progress: 1,
      gate_tampered: 1,
      review_unresolved: 1,
      pr_closed: 1,
      hook_blocked: 1,
      dirty_tree: 1,
      stuck: 1,
      tdd_state: 1,
      auth_error: 1,
      error: 1,
      interrupted: 130,
    };
    expect(EXIT_FOR_REASON).toEqual(expected);
    expect(ExitCode).toEqual({ ok: 0, failure: 1, limit: 2, interrupted: 130 });
  });
});

describe('limitStop', () => {
  it('names the configured value of each limit and exits 2', () => {
    const c: Counters = { ...zero, costUsd: 5.12345, tokens: 123_456 };
    const it1 = limitStop('max_iterations', c, limits);
    expect(it1).toEqual({ reason: 'max_iterations', exitCode: 2, message: 'reached max_iterations (10)' });
    expect(limitStop('max_runtime', c, limits).message).toBe('reached max_runtime_seconds (60)');
    expect(limitStop('max_cost', c, limits).message).toBe('reached max_cost_usd ($5; spent $5.1235)');
    expect(limitStop('max_tokens', c, limits).message).toBe('reached max_tokens (100000; used 123456)');
    for (const r of ['max_iterations', 'max_runtime', 'max_cost', 'max_tokens'] as const) {
      const s = limitStop(r, c, limits);
      expect(s.reason).toBe(r);
      expect(s.exitCode).toBe(ExitCode.limit);
    }
  });
});

describe('limitReached', () => {
  it('returns undefined at the start of a run', () => {
    expect(limitReached(zero, limits)).toBeUndefined();
  });

  it('stops at each limit with its reason and exit code', () => {
    expect(limitReached({ ...zero, iterations: 10 }, limits)?.reason).toBe('max_iterations');
    expect(limitReached({ ...zero, elapsedMs: 60_000 }, limits)?.reason).toBe('max_runtime');
    expect(limitReached({ ...zero, costUsd: 5 }, limits)?.reason).toBe('max_cost');
    expect(limitReached({ ...zero, tokens: 100_000 }, limits)?.reason).toBe('max_tokens');
    const cf = limitReached({ ...zero, consecutiveFailures: 3 }, limits);
    expect(cf?.reason).toBe('consecutive_failures');
    expect(cf?.exitCode).toBe(1);
    expect(cf?.message).toContain('max_consecutive_failures: 3');
  });

  it('treats undefined runtime/cost/token limits as unlimited', () => {
    const unlimited: Limits = {
      ...limits,
      maxRuntimeMs: undefined,
      maxCostUsd: undefined,
      maxTokens: undefined,
    };
    const big: Counters = { ...zero, elapsedMs: 1e12, costUsd: 1e9, tokens: 1e12 };
    expect(limitReached(big, unlimited)).toBeUndefined();
  });

  it('consecutive failures take precedence over resource limits', () => {
    const all: Counters = {
      iterations: 10,
      elapsedMs: 60_000,
      costUsd: 5,
      tokens: 100_000,
      consecutiveFailures: 3,
    };
    expect(limitReached(all, limits)?.reason).toBe('consecutive_failures');
  });

  const limitsArb = fc.record({
    maxIterations: fc.integer({ min: 1, max: 50 }),
    maxRuntimeMs: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
    maxCostUsd: fc.option(fc.double({ min: 0.01, max: 100, noNaN: true }), { nil: undefined }),
    maxTokens: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
    maxConsecutiveFailures: fc.integer({ min: 1, max: 10 }),
  });
  const countersArb = fc.record({
    iterations: fc.integer({ min: 0, max: 60 }),
    elapsedMs: fc.integer({ min: 0, max: 1_200_000 }),
    costUsd: fc.double({ min: 0, max: 120, noNaN: true }),
    tokens: fc.integer({ min: 0, max: 1_200_000 }),
    consecutiveFailures: fc.integer({ min: 0, max: 12 }),
  });

  it('property: undefined iff every counter is under its limit', () => {
    fc.assert(
      fc.property(countersArb, limitsArb, (c, l) => {
        const under =
          c.consecutiveFailures < l.maxConsecutiveFailures &&
          c.iterations < l.maxIterations &&
          (l.maxRuntimeMs === undefined || c.elapsedMs < l.maxRuntimeMs) &&
          (l.maxCostUsd === undefined || c.costUsd < l.maxCostUsd) &&
          (l.maxTokens === undefined || c.tokens < l.maxTokens);
        const result = limitReached(c, l);
        expect(result === undefined).toBe(under);
        if (result) expect(result.exitCode).toBe(EXIT_FOR_REASON[result.reason]);
      }),
    );
  });

  it('property: a reached limit names a counter that is actually at or over its limit', () => {
    fc.assert(
      fc.property(countersArb, limitsArb, (c, l) => {
        const s = limitReached(c, l);
        if (!s) return;
        switch (s.reason) {
          case 'consecutive_failures':
            expect(c.consecutiveFailures).toBeGreaterThanOrEqual(l.maxConsecutiveFailures);
            break;
          case 'max_iterations':
            expect(c.iterations).toBeGreaterThanOrEqual(l.maxIterations);
            break;
          case 'max_runtime':
            expect(c.elapsedMs).toBeGreaterThanOrEqual(l.maxRuntimeMs ?? Number.POSITIVE_INFINITY);
            break;
          case 'max_cost':
            expect(c.costUsd).toBeGreaterThanOrEqual(l.maxCostUsd ?? Number.POSITIVE_INFINITY);
            break;
          case 'max_tokens':
            expect(c.tokens).toBeGreaterThanOrEqual(l.maxTokens ?? Number.POSITIVE_INFINITY);
            break;
          default:
            throw new Error(`unexpected reason ${s.reason}`);
        }
      }),
    );
  });
});

describe('judgeIteration', () => {
  it('a clean exit without the promise is a success', () => {
    expect(judgeIteration(ok, limits, zero)).toEqual({ kind: 'success' });
  });

  it('a clean exit with the promise is complete', () => {
    expect(judgeIteration({ ...ok, promiseSeen: true }, limits, zero)).toEqual({ kind: 'complete' });
  });

  it('a clean exit with an error result is a failure, even with the promise', () => {
    const v = judgeIteration({ ...ok, resultError: true, promiseSeen: true }, limits, zero);
    expect(v.kind).toBe('failure');
  });

  it('interruption aborts with exit 130; stop --now cancels with exit 0', () => {
    const v = judgeIteration(
      { ...ok, killedBy: 'interrupted', exitCode: null, signal: 'SIGTERM' },
      limits,
      zero,
    );
    expect(v).toMatchObject({ kind: 'aborted', stop: { reason: 'interrupted', exitCode: 130 } });
    const s = judgeIteration({ ...ok, killedBy: 'stop_requested' }, limits, zero);
    expect(s).toMatchObject({ kind: 'aborted', stop: { reason: 'cancelled', exitCode: 0 } });
  });

  it('timeouts, spawn errors and signals are failures', () => {
    expect(judgeIteration({ ...ok, killedBy: 'iteration_timeout' }, limits, zero)).toMatchObject({
      kind: 'failure',
      why: expect.stringContaining('iteration timeout'),
    });
    expect(judgeIteration({ ...ok, killedBy: 'idle_timeout' }, limits, zero)).toMatchObject({
      kind: 'failure',
      why: expect.stringContaining('idle timeout'),
    });
    expect(judgeIteration({ ...ok, spawnError: 'ENOENT' }, limits, zero)).toMatchObject({
      kind: 'failure',
      why: expect.stringContaining('ENOENT'),
    });
    expect(judgeIteration({ ...ok, exitCode: null, signal: 'SIGKILL' }, limits, zero)).toMatchObject({
      kind: 'failure',
      why: expect.stringContaining('SIGKILL'),
    });
    expect(judgeIteration({ ...ok, exitCode: 3 }, limits, zero)).toMatchObject({
      kind: 'failure',
      why: expect.stringContaining('3'),
    });
  });

  const outcomeArb: fc.Arbitrary<AgentOutcome> = fc.record({
    exitCode: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }),
    signal: fc.option(fc.constantFrom('SIGTERM', 'SIGKILL', 'SIGSEGV'), { nil: null }),
    killedBy: fc.option(
      fc.constantFrom(
        'interrupted',
        'stop_requested',
        'max_runtime',
        'max_cost',
        'max_tokens',
        'iteration_timeout',
        'idle_timeout',
        'something_else',
      ),
      { nil: null },
    ),
    spawnError: fc.option(fc.constantFrom('ENOENT', 'EACCES'), { nil: undefined }),
    resultError: fc.boolean(),
    promiseSeen: fc.boolean(),
  });
  const countersArb = fc.record({
    iterations: fc.nat(100),
    elapsedMs: fc.nat(1_000_000),
    costUsd: fc.double({ min: 0, max: 100, noNaN: true }),
    tokens: fc.nat(1_000_000),
    consecutiveFailures: fc.nat(10),
  });

  it('property: killedBy interrupted is always aborted with exit 130', () => {
    fc.assert(
      fc.property(outcomeArb, countersArb, (o, c) => {
        const v = judgeIteration({ ...o, killedBy: 'interrupted' }, limits, c);
        expect(v.kind).toBe('aborted');
        if (v.kind === 'aborted') {
          expect(v.stop.reason).toBe('interrupted');
          expect(v.stop.exitCode).toBe(130);
        }
      }),
    );
  });

  it('property: a limit kill is kind "limit" with exit 2 and the same reason', () => {
    fc.assert(
      fc.property(
        outcomeArb,
        countersArb,
        fc.constantFrom('max_cost', 'max_tokens', 'max_runtime'),
        (o, c, kill) => {
          const v = judgeIteration({ ...o, killedBy: kill }, limits, c);
          expect(v.kind).toBe('limit');
          if (v.kind === 'limit') {
            expect(v.stop.reason).toBe(kill);
            expect(v.stop.exitCode).toBe(2);
          }
        },
      ),
    );
  });

  it('property: a nonzero exit (not killed) is a failure', () => {
    fc.assert(
      fc.property(outcomeArb, fc.integer({ min: 1, max: 255 }), (o, code) => {
        const v = judgeIteration({ ...o, killedBy: null, exitCode: code }, limits, zero);
        expect(v.kind).toBe('failure');
      }),
    );
  });

  it('property: exit 0 + promise (no error) → complete; exit 0 + resultError → failure', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), (resultError, promiseSeen) => {
        const v = judgeIteration({ ...ok, resultError, promiseSeen }, limits, zero);
        if (resultError) expect(v.kind).toBe('failure');
        else expect(v.kind).toBe(promiseSeen ? 'complete' : 'success');
      }),
    );
  });

  it('property: complete/success only for a clean, unkilled, error-free exit 0', () => {
    fc.assert(
      fc.property(outcomeArb, countersArb, (o, c) => {
        const v = judgeIteration(o, limits, c);
        const clean =
          o.killedBy === null && !o.spawnError && o.signal === null && o.exitCode === 0 && !o.resultError;
        expect(v.kind === 'complete' || v.kind === 'success').toBe(clean);
        if (clean) expect(v.kind).toBe(o.promiseSeen ? 'complete' : 'success');
      }),
    );
  });
});
