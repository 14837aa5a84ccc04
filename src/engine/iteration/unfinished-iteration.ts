import { noteAgent } from '../../state/loop-state/in-flight.ts';
import { setQueue } from '../context/event-queue.ts';
import type { RunContext } from '../context/run-context.ts';
import { countPark, parkUntil } from '../context/spend-and-limits.ts';
import { switchToFallback } from './backend-fallback.ts';
import type { AgentPhase } from './iteration-agent.ts';
import type { AfterAgentChecks } from './iteration-decision.ts';

/**
 * The outcome of an iteration the agent did not finish, or undefined when it did: aborted (re-run on
 * --resume with the same events) or parked (run again once the limit resets, or at once on the
 * fallback backend). Neither is counted.
 */
export function unfinishedOutcome(ctx: RunContext, phase: AgentPhase, checks: AfterAgentChecks) {
  const { state } = ctx;
  const { verdict } = phase;
  if (verdict.kind !== 'aborted' && verdict.kind !== 'parked') return undefined;
  // Re-run with the same events: on --resume (aborted), or once the limit resets (parked).
  if (state.current) noteAgent(state, null, state.current.agent_start_time);
  const { selection } = phase.route;
  setQueue(state, [...selection.consumed, ...selection.remaining, ...phase.collected.published]);
  if (verdict.kind === 'parked') {
    // Not a failure and not counted: the same iteration runs again once the limit resets.
    countPark(state, verdict.transient);
    // A long usage limit with cli.fallback: the same iteration runs again at once on the next backend.
    if (!switchToFallback(ctx, verdict, phase.route.backend.name))
      parkUntil(state, { until: verdict.until, message: verdict.message, transient: verdict.transient });
  }
  return {
    stopAfter: verdict.kind === 'aborted' ? verdict.stop : undefined,
    completion: undefined,
    gates: checks.gates,
    tddStep: checks.tddStep,
    commit: null,
    approvals: [],
    killed: [],
  };
}
