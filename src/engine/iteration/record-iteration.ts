import { readGitHead } from '../../git/head.ts';
import { redactDeep } from '../../observe/redact.ts';
import type { KilledProcess } from '../../process/marked-processes.ts';
import { appendLine } from '../../state/io/append-line.ts';
import type { IterationDecision, IterationRecord } from '../../state/iteration-record-shape.ts';
import { holdStop } from '../../state/loop-state/run-status.ts';
import { filesChanged } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import { gitConfigFeedback } from '../gates/git-config-gate.ts';
import { damagedFilesFeedback } from '../gates/own-files.ts';
import { tamperedFeedback } from '../gates/protect-gate.ts';
import {
  finishRollback,
  joinRollbacks,
  rollbackFeedback,
  saveRollback,
  workspacePart,
} from '../gates/rollback.ts';
import { tddScopeViolations } from '../workflow-steps/tdd-loop.ts';
import type { AgentPhase } from './iteration-agent.ts';
import type { IterationOutcome } from './iteration-outcome.ts';

/** Appends the iteration record, saves the state and announces the iteration's end. */
export async function recordIteration(
  ctx: RunContext,
  phase: AgentPhase,
  outcome: IterationOutcome,
  killed: KilledProcess[],
): Promise<void> {
  const { state, options } = ctx;
  const finishedAt = ctx.now();
  const filesChangedList = ctx.inRepo
    ? await filesChanged(
        options.workspace,
        phase.headBefore,
        readGitHead(options.workspace).commit ?? null,
        ctx.pendingChanges,
      )
    : null;
  const { run } = phase;
  const sup = run.supervised;
  const { tddStep } = outcome;
  const rolledTo = outcome.rollback && workspacePart(outcome.rollback)?.to;
  const rolledBack = outcome.rollback && rolledTo ? { ref: outcome.rollback.ref, to: rolledTo } : undefined;
  const record: IterationRecord = redactDeep<IterationRecord>(
    {
      run_id: state.run_id,
      iteration: phase.number,
      hat: phase.route.hatId,
      backend: phase.route.backend.name,
      command: phase.invocation.command,
      started_at: new Date(phase.startedAt).toISOString(),
      finished_at: new Date(finishedAt).toISOString(),
      duration_ms: finishedAt - phase.startedAt,
      exit_code: sup.exitCode,
      signal: sup.signal,
      killed_by: sup.killedBy,
      tokens: phase.tokens,
      cost_usd: run.meter.spentUsd() ?? null,
      cost_estimated: run.meter.costIsEstimate(),
      context_pct: run.meter.contextPct(),
      model: run.meter.model ?? phase.route.ladder?.model ?? null,
      head_before: phase.headBefore,
      head_after: readGitHead(options.workspace).commit ?? null,
      events: phase.collected.published.map((e) => e.topic),
      files_changed: filesChangedList,
      commit: outcome.commit,
      gates: outcome.gates,
      ...(outcome.testsSkipped ? { tests_skipped: outcome.testsSkipped } : {}),
      verdict: recordVerdict(phase, outcome, state.idle),
      reason: recordReason(phase, outcome, ctx.promise),
      consecutive_failures: state.consecutive_failures,
      killed_processes: killed,
      ...(phase.failure?.stderrTail ? { stderr_tail: phase.failure.stderrTail } : {}),
      ...(phase.guidance.length > 0 ? { guidance: phase.guidance } : {}),
      ...(phase.questions.length > 0 ? { questions: phase.questions } : {}),
      ...(outcome.approvals.length > 0 ? { approvals: outcome.approvals } : {}),
      ...(phase.sandbox ? { sandbox: phase.sandbox } : {}),
      ...(phase.waveRecord ? { wave: phase.waveRecord } : {}),
      ...(outcome.pullRequest ? { pull_request: outcome.pullRequest } : {}),
      ...(outcome.repos ? { repos: outcome.repos.records } : {}),
      ...(outcome.progress ? { progress: outcome.progress } : {}),
      ...(outcome.gitConfig?.length ? { git_config: outcome.gitConfig } : {}),
      ...(outcome.tampered?.length ? { tampered: outcome.tampered } : {}),
      ...(outcome.unhidden?.length ? { index_flags_cleared: outcome.unhidden } : {}),
      ...(rolledBack ? { rollback: rolledBack } : {}),
      ...(outcome.review ? { review: outcome.review } : {}),
      ...(phase.route.fallbackFrom ? { fallback_from: phase.route.fallbackFrom } : {}),
      decision: decisionOf(ctx, phase, outcome),
      ...(tddStep
        ? {
            report_missing: tddStep.reportMissing,
            scope_violations: tddScopeViolations(ctx.config, filesChangedList),
          }
        : {}),
    },
    ctx.redact,
  );
  // Exactly once: the record and the counters (and the stop it decided) are saved in one atomic
  // state write first; the append follows, and a crash between the two is repaired at the next start.
  state.last_record = record as unknown as NonNullable<typeof state.last_record>;
  // What the next prompt must tell the agent (read and cleared when it is assembled).
  state.feedback = outcome.rollback
    ? rollbackFeedback(outcome.rollback)
    : outcome.repos?.rolledBack
      ? outcome.repos.rolledBack
      : outcome.gitConfig?.length
        ? gitConfigFeedback(outcome.gitConfig)
        : outcome.tampered?.length
          ? tamperedFeedback(outcome.tampered)
          : phase.damaged.length
            ? damagedFilesFeedback(phase.damaged)
            : misplacedPromiseReason(phase, ctx.promise);
  // Saved with the record, before anything is set aside: a crash from here on is finished on --resume.
  saveRollback(state, joinRollbacks(outcome.rollback, outcome.repos?.rollback));
  holdStop(state, outcome.stopAfter);
  ctx.persist();
  appendLine(ctx.recordsFile, JSON.stringify(record));
  await finishRollback(ctx);
  ctx.emit({
    type: 'iteration.finished',
    record,
    totals: { costUsd: state.cost_usd, tokens: state.tokens.total },
  });
}

/** `validation failed: …` when the validate hook ran after this iteration and failed. */
function validateFailure(outcome: IterationOutcome): string | undefined {
  const v = outcome.gates.validate;
  if (!v || v.passed) return undefined;
  return `validation failed: \`${v.command}\` ${v.timed_out ? 'timed out' : `exited with ${v.exit_code}`}`;
}

function recordVerdict(
  phase: AgentPhase,
  outcome: IterationOutcome,
  idle: boolean,
): IterationRecord['verdict'] {
  const { verdict } = phase;
  // A failed validate hook stops the loop: the iteration is not a success, whatever the agent said.
  if (outcome.gitConfig?.length) return 'gate_tampered';
  if (outcome.ruleViolation) return 'rule_violation';
  if (validateFailure(outcome) || outcome.rollback || outcome.repos?.rolledBack) return 'failure';
  if (outcome.tampered?.length) return 'gate_tampered';
  if (phase.damaged.length > 0) return 'failure';
  // Persistent mode: "nothing left" is an idle scan, not the end of the work.
  if (outcome.completion?.accepted) return idle ? 'idle' : 'complete';
  if (outcome.tddStep?.forceFailure) return 'failure';
  return verdict.kind === 'complete' ? 'success' : verdict.kind;
}

/** Why the iteration failed, was cut short, or had its completion rejected; null otherwise. */
function recordReason(phase: AgentPhase, outcome: IterationOutcome, promise: string): string | null {
  const { verdict } = phase;
  const { completion } = outcome;
  const forcedFailure = outcome.tddStep?.forceFailure;
  // Named whatever else went wrong: the change was refused and put back.
  if (outcome.gitConfig?.length) return gitConfigFeedback(outcome.gitConfig);
  if (phase.damaged.length > 0) return damagedFilesFeedback(phase.damaged);
  if (verdict.kind === 'failure')
    return phase.failure?.hint ? `${verdict.why} — ${phase.failure.hint}` : verdict.why;
  if (outcome.rollback) return rollbackFeedback(outcome.rollback).split('\n')[0] ?? null;
  if (outcome.repos?.rollback) return outcome.repos.rollback.trees[0]?.why.split('\n')[0] ?? null;
  const validate = validateFailure(outcome);
  if (validate) return validate;
  if (outcome.tampered?.length) return tamperedFeedback(outcome.tampered);
  if (forcedFailure) return forcedFailure;
  if (verdict.kind === 'aborted' || verdict.kind === 'limit') return verdict.stop.message;
  if (verdict.kind === 'parked')
    return `${verdict.transient ? 'transient API error' : 'rate/usage limit'}: ${verdict.message}; parked until ${new Date(verdict.until).toISOString()}`;
  if (completion && !completion.accepted) return `completion rejected: ${completion.reasons.join('; ')}`;
  return misplacedPromiseReason(phase, promise);
}

/** Says where the promise was when it did not count because it was not the last line. */
export function misplacedPromiseReason(
  phase: Pick<AgentPhase, 'promiseMisplaced'>,
  promise?: string,
): string | null {
  const at = phase.promiseMisplaced;
  if (!at) return null;
  const what = promise ? `"${promise}"` : 'the completion promise';
  return `${what} was on line ${at.line} of ${at.lines} of the final message, not the last line, so it did not count; end the final message with a line containing only it`;
}

/** The record's `decision`: the route, completion, gates, every limit's headroom, the stop. */
function decisionOf(ctx: RunContext, phase: AgentPhase, outcome: IterationOutcome): IterationDecision {
  const c = ctx.counters();
  const l = ctx.limits;
  const g = outcome.gates;
  const { ladder } = phase.route;
  return {
    route: {
      hat: phase.route.hatId,
      backend: phase.route.backend.name,
      triggered_by: phase.route.selection.consumed.map((e) => e.topic),
      ...(ladder
        ? {
            model: {
              name: ladder.model,
              rung: ladder.rung + 1,
              rungs: ladder.rungs,
              scope: ladder.scope,
              reason: ladder.reason,
            },
          }
        : {}),
    },
    completion: outcome.completion ?? null,
    gates: {
      ...(g.validate ? { validate: g.validate.passed } : {}),
      ...(g.tests ? { tests: g.tests.passed } : {}),
    },
    limits: {
      iterations: { used: c.iterations, max: l.maxIterations },
      runtime_ms: { used: c.elapsedMs, max: l.maxRuntimeMs ?? null },
      cost_usd: { used: c.costUsd, max: l.maxCostUsd ?? null },
      tokens: { used: c.tokens, max: l.maxTokens ?? null },
      consecutive_failures: { used: c.consecutiveFailures, max: l.maxConsecutiveFailures },
    },
    stop: outcome.stopAfter ? { reason: outcome.stopAfter.reason, message: outcome.stopAfter.message } : null,
  };
}
