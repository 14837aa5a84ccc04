import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../../../../src/engine/context/run-context.ts';
import type { Stop } from '../../../../../src/engine/decide/limits.ts';
import type { GateResult } from '../../../../../src/engine/gates/checks/run-gate.ts';
import { gateFailure } from '../../../../../src/engine/gates/rollback.ts';
import type { AgentPhase } from '../../../../../src/engine/iteration/iteration-agent.ts';
import { SETTLEMENT_FEATURES } from '../../../../../src/engine/iteration/settle/settlement-features.ts';
import {
  firstStop,
  planSettlement,
  refusedBefore,
} from '../../../../../src/engine/iteration/settle/settlement-plan.ts';
import type {
  SettledTurn,
  SettlementFeature,
  TurnFacts,
} from '../../../../../src/engine/iteration/settle/settlement-types.ts';
import type { ReposOutcome } from '../../../../../src/engine/repos/repo-iteration.ts';
import type { TddStepResult } from '../../../../../src/engine/workflow-steps/tdd-loop.ts';

/** Mostly none: the later checks run only when the earlier ones found nothing. */
const few = <T>(values: T[]) =>
  fc.oneof(
    { arbitrary: fc.constant<T[]>([]), weight: 3 },
    { arbitrary: fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 2 }), weight: 1 },
  );
const files = few(['a.ts', 'b.ts', '.git/info/exclude', 'PROMPT.md']);
const gate = (passed: boolean): GateResult => ({
  gate: 'tests',
  command: 'npm test',
  exitCode: passed ? 0 : 1,
  passed,
  timedOut: false,
  durationMs: 1,
  output: passed ? '' : 'FAIL x',
  stdout: '',
});
const reposOutcome = (rolledBack: boolean): ReposOutcome => ({
  records: [],
  blockers: [],
  rolledBack: rolledBack ? 'rolled back in every repository' : undefined,
  testsLines: {},
  ...(rolledBack ? { rollback: { iteration: 4, ref: 'refs/r', trees: [] } } : {}),
});

/** What the checks after an agent can find, each later one only where gatherTurnFacts runs it. */
const arbFacts: fc.Arbitrary<TurnFacts> = fc
  .record({
    agentOk: fc.boolean(),
    control: files,
    gitConfig: few(['core.fsmonitor', 'filter.x.clean']),
    damaged: few(['.ralph/state.json']),
    touched: files,
    tests: fc.constantFrom<boolean | undefined>(undefined, true, false),
    markerHit: fc.boolean(),
    forceFailure: fc.option(fc.constant('the TDD report was incomplete'), { nil: undefined }),
    rollsBack: fc.boolean(),
    rollbackTo: fc.constantFrom<string | null>('c0ffee0000', 'c0ffee0000', null),
    reposConfigured: fc.boolean(),
    ruled: fc.option(
      fc.record({ why: fc.constant('rule_violation: a.ts is denied'), violation: fc.boolean() }),
      {
        nil: undefined,
      },
    ),
    nested: fc.option(fc.constant('it created a nested git repository'), { nil: undefined }),
    reposRolledBack: fc.boolean(),
  })
  .map((g) => {
    const facts: TurnFacts = {
      phase: { number: 4, damaged: g.damaged } as unknown as AgentPhase,
      agentOk: g.agentOk,
      control: g.control,
      gitConfig: g.gitConfig,
      unhidden: [],
      touched: g.agentOk ? g.touched : [],
      checks: {
        gates: {},
        testsGate: g.agentOk && g.tests !== undefined && !g.reposConfigured ? gate(g.tests) : undefined,
        tddStep:
          g.agentOk && g.forceFailure ? ({ forceFailure: g.forceFailure } as TddStepResult) : undefined,
        markerHit: g.agentOk && g.markerHit,
      },
      ruled: undefined,
      nested: undefined,
      repos: undefined,
      rollsBack: g.rollsBack,
      rollbackTo: g.rollbackTo,
      rescueRef: 'refs/ralph/rescue/run/4',
    };
    // The staged checks, where the settlement before the plan ran them.
    if (oldStages(facts).rules && !g.reposConfigured) facts.ruled = g.ruled;
    if (oldStages(facts).nested && !g.reposConfigured) facts.nested = g.nested;
    if (oldStages(facts).repos && g.reposConfigured) facts.repos = reposOutcome(g.reposRolledBack);
    return facts;
  });

/** Where the settlement before the plan ran the rules, the nested-repository check and repos. */
function oldStages(f: TurnFacts) {
  const first =
    f.agentOk && f.touched.length === 0 && f.gitConfig.length === 0 && f.phase.damaged.length === 0;
  const control = first && !f.ruled && f.control.length > 0;
  const t = f.checks.testsGate;
  const testsFailure = f.rollsBack && t !== undefined && !t.passed;
  return {
    rules: first,
    nested: first && !control && !f.ruled,
    repos: first && !control && !f.ruled && !f.nested && !testsFailure,
  };
}

/**
 * The settlement before the plan (iteration-outcome.ts, as it was), with the two changes the plan
 * makes on purpose: a rules, nested-repository or failing-tests refusal with no commit to roll back
 * to keeps the work uncommitted and counts as failed (before, a nested repository's could complete).
 */
function oldSettlement(f: TurnFacts) {
  let ok = f.agentOk;
  let marker = f.checks.markerHit;
  let uncommitted = false;
  const refuse = () => {
    ok = false;
    marker = false;
    uncommitted = true;
  };
  if (f.touched.length > 0 || f.gitConfig.length > 0 || f.phase.damaged.length > 0) refuse();
  const ruled = f.ruled;
  const tampered = [...f.touched, ...(f.agentOk && !ruled ? f.control : [])];
  if (tampered.length > f.touched.length) refuse();
  const carry = !ok || ruled !== undefined;
  const t = f.checks.testsGate;
  const testsFailure = ok && f.rollsBack ? gateFailure(t) : undefined;
  const refusal = ruled?.why ?? f.nested ?? testsFailure;
  const rollback = refusal && f.rollbackTo ? { to: f.rollbackTo, why: refusal } : undefined;
  if (refusal && !rollback) refuse();
  if (rollback) {
    ok = false;
    marker = false;
  }
  if (f.repos?.rollback) {
    ok = false;
    marker = false;
  }
  const forced =
    f.repos?.rolledBack ??
    f.checks.tddStep?.forceFailure ??
    (f.gitConfig.length > 0 ? 'git config' : undefined) ??
    (tampered.length > 0 ? 'tampered' : undefined) ??
    (f.phase.damaged.length > 0 ? 'damaged' : undefined) ??
    (rollback ? 'rollback' : undefined) ??
    (refusal && !rollback ? refusal : undefined);
  return { ok, marker, uncommitted, tampered, carry, rollback, forced };
}

describe('planSettlement (pure)', () => {
  it('makes the verdict the settlement made before, feature by feature', () => {
    fc.assert(
      fc.property(arbFacts, (facts) => {
        const plan = planSettlement(facts);
        const old = oldSettlement(facts);
        expect(plan.verdict.accepted).toBe(old.ok);
        expect(plan.markerHit).toBe(old.marker);
        expect(plan.verdict.keptUncommitted).toBe(old.uncommitted);
        expect(plan.verdict.tampered).toEqual(old.tampered);
        expect(plan.verdict.carryRulesStart).toBe(old.carry);
        expect(plan.verdict.rollback?.trees[0]?.to).toBe(old.rollback?.to);
        expect(plan.verdict.rollback?.trees[0]?.why).toBe(old.rollback?.why);
        expect(plan.forced !== undefined).toBe(old.forced !== undefined);
      }),
      { numRuns: 1000 },
    );
  });

  it('runs each staged check where the settlement before the plan ran it', () => {
    fc.assert(
      fc.property(arbFacts, (facts) => {
        const old = oldStages(facts);
        expect(facts.agentOk && !refusedBefore(facts, 'rules')).toBe(old.rules);
        expect(facts.agentOk && !refusedBefore(facts, 'nested-repos')).toBe(old.nested);
        expect(facts.agentOk && !refusedBefore(facts, 'repos')).toBe(old.repos);
      }),
      { numRuns: 1000 },
    );
  });

  it('never commits, completes or marks green a refused turn, and always counts it as failed', () => {
    fc.assert(
      fc.property(arbFacts, (facts) => {
        const plan = planSettlement(facts);
        if (plan.verdict.accepted) return;
        expect(plan.settleWork).toBe(false);
        expect(plan.markerHit).toBe(false);
        expect(plan.greenCandidate).toBe(false);
        // A failure: the event decision cannot accept completion (succeeded is false).
        if (facts.agentOk) expect(plan.forced).toBeDefined();
      }),
      { numRuns: 1000 },
    );
  });

  it('sets a turn aside, or keeps it uncommitted, never both; accepted work is neither', () => {
    fc.assert(
      fc.property(arbFacts, (facts) => {
        const { verdict } = planSettlement(facts);
        expect(verdict.rollback !== undefined && verdict.keptUncommitted).toBe(false);
        if (verdict.accepted) {
          expect(verdict.rollback).toBeUndefined();
          expect(verdict.keptUncommitted).toBe(false);
          expect(verdict.tampered).toEqual([]);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("lists the stops in today's precedence", () => {
    const stops = planSettlement({
      ...fc.sample(arbFacts, 1)[0],
    } as TurnFacts).stops.map((f) => f.name);
    expect(stops).toEqual([
      'review',
      'protect',
      'git-config',
      'approvals',
      'pull-requests',
      'metric',
      'iteration-end',
      'review-rounds',
      'progress',
    ]);
  });

  it('takes the first stop in the list and asks none after it', () => {
    const ctx = {} as RunContext;
    const turn = {} as SettledTurn;
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined })), (answers) => {
        const asked: number[] = [];
        const stops: SettlementFeature[] = answers.map((n, i) => ({
          name: `f${i}`,
          stop: () => {
            asked.push(i);
            return n === undefined ? undefined : ({ reason: 'error', message: `${i}`, exitCode: 1 } as Stop);
          },
        }));
        const at = answers.findIndex((n) => n !== undefined);
        expect(firstStop(stops, ctx, turn)?.message).toBe(at < 0 ? undefined : `${at}`);
        expect(asked).toEqual([...answers.keys()].slice(0, at < 0 ? answers.length : at + 1));
      }),
    );
  });

  it('names every feature once, and refuses only through features listed before a check', () => {
    const names = SETTLEMENT_FEATURES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(() => refusedBefore({} as TurnFacts, 'no-such-feature')).toThrow(/no settlement feature/);
  });
});
