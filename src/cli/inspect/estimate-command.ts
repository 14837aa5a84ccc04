import type { ResolvedRun } from '../../engine/run/run-inputs.ts';
import { ExitCode } from '../../errors.ts';
import { formatCost, formatNumber } from '../../observe/format.ts';
import { estimateRun } from '../../observe/stats/estimate-inputs.ts';
import type { Estimate, LimitVerdict, Range } from '../../observe/stats/estimate-run.ts';
import { skippedNotice } from '../../state/io/jsonl.ts';
import { formatSpan } from '../../state/io/time-format.ts';
import type { CliIO } from '../io.ts';
import { type RunFlags, resolveRunFlags } from '../run/run-flags.ts';

const VERDICT: Record<LimitVerdict, string> = {
  within: 'within the whole range',
  may_stop: 'may stop the run (inside the range)',
  likely_stops: 'likely stops the run (at or below the expected value)',
  stops: 'stops the run (below the whole range)',
};

const range = (r: Range, f: (n: number) => string) =>
  `${f(r.low)} – ${f(r.high)} (expected ${f(r.expected)})`;
const whole = (n: number) => formatNumber(Math.round(n));

/** The estimate as a person reads it: the ranges, what they are based on, the limits. */
export function estimateText(e: Estimate): string {
  const lines = [
    `estimate (${e.based_on.kind === 'history' ? 'from history' : 'from the size of the work'}): ${e.based_on.text}`,
    `  iterations  ${range(e.iterations, whole)}`,
    `  tokens      ${range(e.tokens, whole)}`,
    `  cost        ${e.cost_usd ? range(e.cost_usd, formatCost) : 'unknown (no costs recorded and no list price for the model)'}`,
    `  time        ${range(e.duration_ms, formatSpan)} in iterations`,
    ...e.limits.map(
      (l) =>
        `  limit ${l.limit} ${l.limit === 'max_cost_usd' ? formatCost(l.max) : formatNumber(l.max)}: ${VERDICT[l.verdict]}`,
    ),
    e.stopped_by
      ? `  → ${e.stopped_by} would stop the run before its work is done: raise it (ralph.yml, or --set event_loop.${e.stopped_by}=…) if the run should finish`
      : '  → no limit is expected to stop the run',
  ];
  return `${lines.join('\n')}\n`;
}

/** Prints the estimate of the run `resolved` describes; starts nothing. */
export function printEstimate(resolved: ResolvedRun, json: boolean, io: CliIO): number {
  const estimate = estimateRun({
    workspace: io.cwd,
    config: resolved.config,
    backend: resolved.backend.name,
    prompt: resolved.prompt,
    env: io.env,
    onDamaged: (d) => io.err(`ralph: ${skippedNotice(d.file, d.skipped)}\n`),
  });
  io.out(json ? `${JSON.stringify(estimate, null, 2)}\n` : estimateText(estimate));
  return ExitCode.ok;
}

/** `ralph estimate`: the run that `ralph run` with the same flags would start, predicted. */
export async function estimateCommand(
  flags: RunFlags & { json?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  return printEstimate(
    await resolveRunFlags(io.cwd, flags, io.env, { cache: false }),
    flags.json === true,
    io,
  );
}
