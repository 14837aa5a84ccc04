import { resolve } from 'node:path';
import { readCoverageTotal } from '../../gates/coverage-summary.ts';
import { type GateResult, runGate, testsReport } from '../../gates/run-gate.ts';
import type { GateSummary } from '../../observe/iteration-record.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { type RunContext, ralphEnv } from '../context/run-context.ts';

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

/** Runs one gate command with Ralph's environment, streaming its output into the event stream. */
async function runGateStep(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
  gate: GateResult['gate'],
  command: string,
  timeoutMs: number,
): Promise<GateResult> {
  const { emit } = ctx;
  emit({ type: 'gate.started', iteration, gate, command });
  const result = await runGate({
    gate,
    command,
    workspace: ctx.options.workspace,
    env: ralphEnv(ctx, iteration, hat, [ctx.config.cli.env]),
    timeoutMs,
    killGraceMs: ctx.graceMs,
    // Not the interrupt: once the agent is done, Ctrl-C lets the iteration finish and be recorded
    // (a killed gate would read as a failed one); a second Ctrl-C kills the gate with everything else.
    onOutput: (text) => emit({ type: 'gate.output', iteration, gate, text }),
  });
  emit({ type: 'gate.finished', iteration, gate, summary: summarize(result), output: result.output });
  return result;
}

/** The project's tests (`gates.tests`), with the report file written when configured. */
export async function runTestsGate(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
): Promise<GateResult | undefined> {
  const tests = ctx.config.gates.tests;
  if (!tests) return undefined;
  const startedAt = Date.now();
  const ran = await runGateStep(ctx, iteration, hat, 'tests', tests.command, tests.timeout_seconds * 1000);
  // Compared with file times, so the wall clock; a summary older than this run of the tests is not this run's.
  const coverage = readCoverageTotal(ctx.options.workspace, startedAt);
  const result = coverage ? { ...ran, coverage } : ran;
  if (tests.report_file) {
    writeFileAtomicSync(
      resolve(ctx.options.workspace, tests.report_file),
      testsReport(result, iteration, new Date(ctx.now())),
    );
  }
  return result;
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
