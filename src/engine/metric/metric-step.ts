import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MetricConfig } from '../../config/schema/metric.ts';
import { RalphError } from '../../errors.ts';
import { readGitHead } from '../../git/head.ts';
import { formatFigure as fmt } from '../../observe/format.ts';
import { appendOrReplaceLine } from '../../state/io/append-line.ts';
import type { MetricNote, MetricProgress, MetricResult, PendingRollback } from '../../state/loop-state.ts';
import { sweepLeftovers } from '../context/agent-turns.ts';
import { type RunContext, ralphEnv } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { runGate } from '../gates/checks/run-gate.ts';
import { workspaceRollback } from '../gates/rollback.ts';
import {
  decideAttempt,
  type Measurement,
  parseMeasurement,
  summarizeMeasurements,
  targetReached,
} from './metric-decision.ts';

/** Ideas the state (and so the next prompt) keeps: the latest kept and the latest failed. */
const KEPT_NOTES = 5;
const FAILED_NOTES = 10;
/** Characters of an idea or a failure message kept (attempts.jsonl, the prompt). */
const TEXT_CAP = 300;

/** What the metric step reads of an iteration: its number, HEAD before it, what the agent said and published. */
export interface MetricAttemptInput {
  number: number;
  headBefore: string | null;
  finalText: string;
  published: readonly { topic: string; payload?: unknown }[];
}

/** The metric loop's verdict on one iteration: a rollback to plan and the stop it decided. */
export interface MetricStepResult {
  rollback: PendingRollback | undefined;
  stop: Stop | undefined;
}

/** Runs the benchmark `repeats` times at HEAD: the measurement, or why one run failed. */
async function measure(
  ctx: RunContext,
  iteration: number,
  m: MetricConfig,
): Promise<Measurement | { error: string }> {
  const values: number[] = [];
  for (let i = 0; i < m.repeats; i++) {
    const r = await runGate({
      gate: 'metric',
      command: m.command,
      workspace: ctx.options.workspace,
      env: ralphEnv(ctx, iteration, null, [ctx.config.cli.env]),
      timeoutMs: m.timeout_seconds * 1000,
      killGraceMs: ctx.graceMs,
    });
    // The benchmark is the agent's code too: nothing it detached outlives the measurement.
    await sweepLeftovers(ctx, 'the metric command');
    const how = r.timedOut
      ? `timed out after ${m.timeout_seconds} s`
      : !r.passed
        ? `exited with ${r.exitCode ?? 'a signal'}: ${r.output.trim().split('\n').at(-1) ?? ''}`
        : undefined;
    const parsed = how ? { error: how } : parseMeasurement(r.stdout, m);
    if ('error' in parsed)
      return { error: `\`${m.command}\` (run ${i + 1} of ${m.repeats}): ${parsed.error}`.slice(0, TEXT_CAP) };
    values.push(parsed.value);
  }
  return summarizeMeasurements(values);
}

/** At run start (not on --resume): the baseline, measured once at HEAD; a failure stops the run before any agent runs. */
export async function metricAtStart(ctx: RunContext): Promise<void> {
  const m = ctx.config.metric;
  if (!m || ctx.state.metric) return;
  const at = await measure(ctx, 0, m);
  if ('error' in at)
    throw new RalphError(
      'preflight',
      `metric: the baseline could not be measured: ${at.error}; fix metric.command or its pattern/json_path, then run again`,
    );
  const baseline: MetricResult = {
    iteration: 0,
    commit: readGitHead(ctx.options.workspace).commit ?? null,
    ...at,
  };
  // The line first: a crash before the state save measures again and replaces it (never none).
  // The baseline line says what was measured, so `ralph stats` can chart the run whatever ralph.yml says later.
  appendAttempt(ctx, {
    iteration: 0,
    kept: true,
    verdict: 'baseline',
    idea: null,
    ...at,
    commit: baseline.commit,
    command: m.command,
    direction: m.direction,
    target: m.target ?? null,
  });
  ctx.state.metric = { baseline, best: baseline, not_kept_streak: 0, kept: [], failed: [] };
  ctx.persist();
  ctx.emit({
    type: 'notice',
    level: 'info',
    message: `metric baseline: ${fmt(at.value)} (spread ${fmt(at.spread)} over ${m.repeats} runs)`,
  });
}

/**
 * After an iteration whose gates passed: measures HEAD, keeps it when it beats the best so far by
 * more than the noise and min_improvement, else plans its rollback (the rescue ref keeps it).
 */
export async function metricStep(ctx: RunContext, phase: MetricAttemptInput): Promise<MetricStepResult> {
  const m = ctx.config.metric;
  const progress = ctx.state.metric;
  if (!m || !progress) return { rollback: undefined, stop: undefined };
  const idea = ideaOf(phase);
  const head = readGitHead(ctx.options.workspace).commit ?? null;
  const n = phase.number;
  const measured =
    head === phase.headBefore
      ? { error: 'no commit to measure (the iteration changed nothing)' }
      : await measure(ctx, n, m);
  const figures = 'error' in measured ? undefined : measured;
  const bestBefore = progress.best.value;
  const d = figures ? decideAttempt(progress.best, figures, m) : undefined;
  const kept = d?.keep === true;
  const why = d ? d.why : `the metric could not be measured: ${'error' in measured ? measured.error : ''}`;
  const note: MetricNote = { iteration: n, idea, value: figures?.value ?? null, why };
  let rollback: PendingRollback | undefined;
  if (kept && figures) {
    progress.best = { iteration: n, commit: head, ...figures };
    progress.not_kept_streak = 0;
    progress.kept = [...progress.kept, note].slice(-KEPT_NOTES);
  } else {
    progress.not_kept_streak += 1;
    progress.failed = [...progress.failed, note].slice(-FAILED_NOTES);
    if (head !== phase.headBefore) rollback = workspaceRollback(ctx, n, `metric: ${why}`, phase.headBefore);
  }
  appendAttempt(ctx, {
    iteration: n,
    kept,
    verdict: kept ? 'kept' : figures ? 'not_kept' : 'measure_failed',
    idea,
    ...(figures ?? {}),
    best_before: bestBefore,
    improvement: d?.improvement,
    noise: d?.noise,
    why,
    commit: head,
    rescue_ref: rollback?.ref ?? null,
  });
  ctx.emit({ type: 'notice', level: kept ? 'info' : 'warn', message: `metric, iteration ${n}: ${why}` });
  return { rollback, stop: metricStop(progress, m) };
}

/** `metric_target` once the best reaches metric.target; `metric_patience` after that many attempts in a row not kept. */
export function metricStop(progress: MetricProgress, m: MetricConfig): Stop | undefined {
  if (targetReached(progress.best, m))
    return stop(
      'metric_target',
      `metric target reached: ${fmt(progress.best.value)} (target ${fmt(m.target ?? 0)}, baseline ${fmt(progress.baseline.value)})`,
    );
  if (m.patience !== undefined && progress.not_kept_streak >= m.patience)
    return stop(
      'metric_patience',
      `no improvement kept in ${m.patience} attempts in a row (metric.patience); best ${fmt(progress.best.value)}, baseline ${fmt(progress.baseline.value)}`,
    );
  return undefined;
}

/** The agent's one-line idea: its `ralph emit metric.idea "…"`, else the last line of its final message. */
function ideaOf(phase: MetricAttemptInput): string {
  const emitted = phase.published.filter((e) => e.topic === 'metric.idea').at(-1)?.payload;
  const text =
    typeof emitted === 'string' && emitted.trim()
      ? emitted
      : (phase.finalText.trim().split('\n').at(-1) ?? '');
  return text.trim().slice(0, TEXT_CAP) || '(no idea given)';
}

/** One line per run and iteration: a re-run after a crash replaces the line its first try left. */
function appendAttempt(ctx: RunContext, attempt: Record<string, unknown> & { iteration: number }): void {
  const file = ctx.paths.metricAttempts;
  mkdirSync(dirname(file), { recursive: true });
  const runId = ctx.state.run_id;
  appendOrReplaceLine(
    file,
    { run_id: runId, at: new Date(ctx.now()).toISOString(), ...attempt },
    (a) => isRecord(a) && a.run_id === runId && a.iteration === attempt.iteration,
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
