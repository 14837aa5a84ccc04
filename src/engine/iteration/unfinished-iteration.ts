import type { RunContext } from '../context/run-context.ts';
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
  if (state.current) state.current.agent_pid = null;
  const { selection } = phase.route;
  state.pending_events = [...selection.consumed, ...selection.remaining, ...phase.collected.published];
  if (verdict.kind === 'parked') {
    // Not a failure and not counted: the same iteration runs again once the limit resets.
    const parks = state.parks ?? { rateLimit: 0, transient: 0 };
    state.parks = verdict.transient
      ? { ...parks, transient: parks.transient + 1 }
      : { ...parks, rateLimit: parks.rateLimit + 1 };
    // A long usage limit with cli.fallback: the same iteration runs again at once on the next backend.
    if (!switchToFallback(ctx, verdict, phase.route.backend.name))
      state.parked = { until: verdict.until, message: verdict.message, transient: verdict.transient };
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
