import { formatDuration } from '../../state/io/time-format.ts';
import type { PendingEvent, PendingRollback } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { promiseFulfilled } from '../decide/completion.ts';
import { type EventDecision, eventSignature, STALE_REPEATS } from '../decide/event-decisions.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { nextStaleCount } from '../decide/stale-loop.ts';
import type { GateResult } from '../gates/checks/run-gate.ts';
import { markerReached } from '../gates/completion-marker.ts';
import { workspacePart } from '../gates/rollback.ts';
import type { IterationProgress } from '../gates/work-progress.ts';
import type { TddStepResult } from '../workflow-steps/tdd-loop.ts';
import type { AgentPhase } from './iteration-agent.ts';
import { commandKeys } from './iteration-prompt.ts';

/** Malformed event lines in a row that stop the loop. */
const MAX_MALFORMED = 3;

/** What a finished (not aborted) iteration produced that can end the loop. */
export interface StopInput {
  phase: AgentPhase;
  decision: EventDecision;
  markerHit: boolean;
  tddStep: TddStepResult | undefined;
  commit: string | null;
  validateGate: GateResult | undefined;
  pushError: string | undefined;
  /** A commit refused before it was made (settle-work.ts). */
  commitError?: string | undefined;
  /** gates.on_failure: rollback set the iteration aside (done before the stop is announced). */
  rollback: PendingRollback | undefined;
  /** What the iteration moved: work (files, a commit) starts the stale-loop count over. */
  progress: IterationProgress;
}

/** Why the loop ends after a finished iteration, first reason first; undefined when it goes on. */
export function stopAfterIteration(ctx: RunContext, s: StopInput): Stop | undefined {
  const { config, state } = ctx;
  const { verdict, invocation } = s.phase;
  const sup = s.phase.run.supervised;
  const { validateGate, decision } = s;
  if (verdict.kind === 'limit') return verdict.stop;
  if (s.commitError) return stop('error', s.commitError);
  if (validateGate && !validateGate.passed) return validationStop(validateGate, s.commit, s.rollback);
  if (s.pushError) return stop('push_failed', s.pushError);
  if (s.tddStep?.stuck) return stop('stuck', s.tddStep.stuck);
  if (
    verdict.kind === 'failure' &&
    sup.killedBy === 'iteration_timeout' &&
    config.event_loop.on_iteration_timeout === 'stop'
  )
    return stop(
      'iteration_timeout',
      `iteration timeout: the agent ran longer than ${formatDuration(s.phase.iterationMs)} and was killed (on_iteration_timeout: stop); break the task into smaller ones, then run ralph again`,
    );
  const cancelled = cancellationSeen(ctx, s.phase);
  if (cancelled) return stop('cancelled', cancelled);
  if (decision.complete) return stop('completed', completedMessage(ctx, s.markerHit));
  if (decision.giveUp) return stop('no_events', decision.giveUp);
  if (state.malformed_streak >= MAX_MALFORMED)
    return stop(
      'malformed_events',
      `${state.malformed_streak} malformed lines in a row in ${state.events_file}; each line must be a JSON object with a "topic" (use \`ralph emit\`)`,
    );
  if (sup.spawnError && (sup.spawnError as NodeJS.ErrnoException).code === 'ENOENT')
    return stop(
      'error',
      `agent command not found: ${invocation.command} — install it or fix ${commandKeys(s.phase.route)}`,
    );
  return staleLoopStop(ctx, s.phase.route.hatId, s.phase.collected.published, decision.idle, s.progress);
}

/**
 * `event_loop.cancellation_promise` as the agent's last line (an echo of the prompt never counts) or
 * as the topic of its last event: the loop stops as cancelled, not completed.
 */
function cancellationSeen(ctx: RunContext, phase: AgentPhase): string | undefined {
  const promise = ctx.config.event_loop.cancellation_promise;
  if (promise === undefined || phase.verdict.kind === 'failure') return undefined;
  const lastEvent = phase.collected.published.at(-1);
  if (lastEvent?.topic === promise || promiseFulfilled(phase.finalText, promise, phase.prompt))
    return `the agent cancelled the loop with "${promise}" (cancellation_promise); the work is not complete — see the log, then run ralph again`;
  return undefined;
}

/**
 * The stop for a failed validate hook (`gates.validate`), saying where the iteration's work is when
 * the run ends: rolled back into its rescue ref (gates.on_failure: rollback), or committed.
 */
export function validationStop(gate: GateResult, commit: string | null, rollback?: PendingRollback): Stop {
  const to = rollback ? (workspacePart(rollback)?.to ?? '') : '';
  const where = rollback
    ? ` (this iteration was rolled back to ${to.slice(0, 7)}; its work is kept in ${rollback.ref}: \`ralph rescue show ${rollback.iteration}\`)`
    : commit
      ? ` (this iteration's work is committed as ${commit.slice(0, 7)})`
      : '';
  return stop(
    'validation_failed',
    `validation failed: \`${gate.command}\` ${gate.timedOut ? 'timed out' : `exited with ${gate.exitCode}`}; its output is in the log — fix it, then run ralph again${where}`,
  );
}

/** Says what completed the loop: the marker, the checklist condition, or the promise. */
export function completedMessage(ctx: RunContext, markerHit: boolean): string {
  const { config } = ctx;
  const marker = config.completion.marker;
  if (!markerHit) return `completion promise "${ctx.promise}" accepted`;
  if (marker && markerReached(ctx.options.workspace, marker)) return `${marker.file} contains ${marker.text}`;
  return `${config.completion.checklist}: ${ctx.condition === 'milestone' ? `milestone "${ctx.state.start_milestone}" is complete` : 'every task is checked'}`;
}

/** Stale-loop detection (nextStaleCount): the same events from the same hat, in a row, without work. */
function staleLoopStop(
  ctx: RunContext,
  hatId: string | null,
  published: readonly PendingEvent[],
  idle: boolean,
  progress: IterationProgress,
): Stop | undefined {
  const { state } = ctx;
  const signature = published.length > 0 ? eventSignature(hatId, published) : null;
  const worked = progress.files === true || progress.commit;
  const next = nextStaleCount(state, { signature, idle, worked });
  state.last_signature = next.last_signature;
  state.signature_repeats = next.signature_repeats;
  if (!next.stale || signature === null) return undefined;
  return stop(
    'stale_loop',
    `stale loop: ${hatId ?? 'the agent'} published the same events ${STALE_REPEATS} times in a row without changing a file or committing (${signature.split('|')[1]})`,
  );
}
