import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { RalphConfig } from '../../config/schema.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import type { GateSummary, TestsGateSummary } from '../../state/iteration-record-shape.ts';
import { sweepLeftovers } from '../context/agent-turns.ts';
import { type RunContext, ralphEnv } from '../context/run-context.ts';
import { type IterationStart, iterationChanges } from './changed-files.ts';
import { type ChangedFiles, planTests } from './checks/affected-tests.ts';
import { readCoverageTotal } from './checks/coverage-summary.ts';
import { type GateResult, runGate, testsReport } from './checks/run-gate.ts';

/** A gate's result as the iteration record and the events carry it. */
export function summarize(g: GateResult): GateSummary {
  return {
    command: g.command,
    passed: g.passed,
    exit_code: g.exitCode,
    timed_out: g.timedOut,
    duration_ms: g.durationMs,
    ...(g.coverage ? { coverage: g.coverage } : {}),
  };
}

/**
 * Runs one gate command with Ralph's environment (the iteration's mark included), streaming its
 * output into the event stream, then sweeps what it left running.
 */
export async function runGateStep(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
  gate: 'validate' | 'tests',
  command: string,
  timeoutMs: number,
  /** Where it runs: the workspace, or one repository of `repos`. */
  cwd: string = ctx.options.workspace,
): Promise<GateResult> {
  const { emit } = ctx;
  emit({ type: 'gate.started', iteration, gate, command });
  const result = await runGate({
    gate,
    command,
    workspace: cwd,
    env: ralphEnv(ctx, iteration, hat, [ctx.config.cli.env]),
    timeoutMs,
    killGraceMs: ctx.graceMs,
    // Not the interrupt: once the agent is done, Ctrl-C lets the iteration finish and be recorded
    // (a killed gate would read as a failed one); a second Ctrl-C kills the gate with everything else.
    onOutput: (text) => emit({ type: 'gate.output', iteration, gate, text }),
  });
  emit({ type: 'gate.finished', iteration, gate, summary: summarize(result), output: result.output });
  // It ran the agent's code (its tests, its build): what that detached must not outlive the gate.
  await sweepLeftovers(ctx, `the ${gate} gate`);
  return result;
}

/** The tests gate after an iteration: the command's result, or why none ran. */
export interface TestsRun {
  result: GateResult | undefined;
  /** What the record's `gates.tests` says (when a command ran). */
  summary: TestsGateSummary | undefined;
  /** Set when gates.tests.affected ran nothing: `affected: skipped, no changes`. */
  skipped: string | undefined;
}

/**
 * The project's tests (`gates.tests`): the full command, or with `affected` only the tests related
 * to the iteration's changed files (planTests says which), with the report file written when configured.
 */
export async function runTestsGate(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
  o: { completionRequested: boolean; start: IterationStart },
): Promise<TestsRun | undefined> {
  const tests = ctx.config.gates.tests;
  if (!tests) return undefined;
  return runTestsIn(ctx, iteration, hat, {
    tests,
    root: ctx.options.workspace,
    completionRequested: o.completionRequested,
    changes: tests.affected === undefined ? null : await iterationChanges(ctx, o.start),
    label: '',
  });
}

/**
 * One tests gate run in `root` (the workspace, or one repository of `repos`, whose notices start
 * with `label`): planned by planTests from `changes`, its coverage read and its report file written there.
 */
export async function runTestsIn(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
  o: {
    tests: NonNullable<RalphConfig['gates']['tests']>;
    root: string;
    completionRequested: boolean;
    changes: ChangedFiles | null;
    label: string;
  },
): Promise<TestsRun> {
  const { tests, root, label } = o;
  const plan = planTests({
    tests,
    iteration,
    completionRequested: o.completionRequested,
    changes: o.changes,
    exists: (p) => existsSync(resolve(root, p)),
  });
  if (plan.scope === 'skipped') {
    const skipped = `affected: skipped, ${plan.why}`;
    ctx.emit({ type: 'notice', level: 'info', message: `${label}tests: ${skipped}` });
    return { result: undefined, summary: undefined, skipped };
  }
  const why = plan.scope === 'full' && plan.why ? ` — the full suite: ${plan.why}` : '';
  if (label !== '' || why !== '') ctx.emit({ type: 'notice', level: 'info', message: `${label}tests${why}` });
  const startedAt = Date.now();
  const ran = await runGateStep(
    ctx,
    iteration,
    hat,
    'tests',
    plan.command,
    tests.timeout_seconds * 1000,
    root,
  );
  // Compared with file times, so the wall clock; a summary older than this run of the tests is not this run's.
  const coverage = readCoverageTotal(root, startedAt);
  const result = coverage ? { ...ran, coverage } : ran;
  if (tests.report_file)
    writeFileAtomicSync(
      resolve(root, tests.report_file),
      testsReport(result, iteration, new Date(ctx.now())),
    );
  const summary: TestsGateSummary = {
    ...summarize(result),
    scope: plan.scope,
    ...(plan.scope === 'affected' ? { files: plan.files } : plan.why ? { why: plan.why } : {}),
  };
  return { result, summary, skipped: undefined };
}

/** The validate hook: a failure stops the loop. */
export function runValidateGate(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
  command: string,
): Promise<GateResult> {
  const timeoutMs = ctx.config.gates.validate_timeout_seconds * 1000;
  return runGateStep(ctx, iteration, hat, 'validate', command, timeoutMs);
}
