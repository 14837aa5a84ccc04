import { rescueRef } from '../../../git/rescue-refs.ts';
import type { RunContext } from '../../context/run-context.ts';
import { checkGitConfig } from '../../gates/git-config-gate.ts';
import { clearHiddenIndexFlags, controlFilesTampered } from '../../gates/git-view.ts';
import { checkProtected, withProtectedContent } from '../../gates/protect-gate.ts';
import { nestedRepoRefusal } from '../../gates/rollback.ts';
import { checkRules } from '../../gates/rules-gate.ts';
import { rulesWalkChanges } from '../../gates/rules-start.ts';
import { rollsBack } from '../../readiness/rollback-readiness.ts';
import { settleRepos } from '../../repos/repo-iteration.ts';
import type { ApprovalEntry } from '../../steering/approval-points.ts';
import type { AgentPhase } from '../iteration-agent.ts';
import { checkAfterAgent } from '../iteration-decision.ts';
import { refusedBefore } from './settlement-plan.ts';
import type { TurnFacts } from './settlement-types.ts';

/**
 * The effectful checks of what the agent did, in the order they must run: git's control files and
 * config first (Ralph's next git call would read them), the index flags, the protected files, the
 * gates (from the protected content), then — each only while no feature listed before it refuses
 * the turn — the rules, a nested repository, and the repositories of `repos`.
 */
export async function gatherTurnFacts(
  ctx: RunContext,
  phase: AgentPhase,
  approvals: ApprovalEntry[],
): Promise<TurnFacts> {
  const { config, state } = ctx;
  const n = phase.number;
  // Changed, Ralph's next git call would read another repository or run the agent's filter: each is
  // put back already, as is a refused git config change.
  const control = controlFilesTampered(ctx, n);
  const gitConfig = await checkGitConfig(ctx, n);
  const agentOk = phase.verdict.kind === 'success' || phase.verdict.kind === 'complete';
  // Before Ralph asks git anything: what the agent hid behind index flags shows again.
  const unhidden = await clearHiddenIndexFlags(ctx, `iteration ${n}`);
  // What the agent changed under the rules' directories, looked at before any gate writes there.
  const walked = agentOk ? rulesWalkChanges(ctx, phase.rulesBefore) : undefined;
  // Protected files first: the gates then run from the protected content, never the agent's.
  const touched = agentOk ? await checkProtected(ctx, n, approvals) : [];
  const checks = await withProtectedContent(ctx, touched, () => checkAfterAgent(ctx, phase));
  // And after the gates (the agent may have changed what they run), before Ralph commits.
  unhidden.push(...(await clearHiddenIndexFlags(ctx, `iteration ${n}'s gates`)));
  const rolls = rollsBack(config);
  const facts: TurnFacts = {
    phase,
    agentOk,
    control,
    gitConfig,
    unhidden,
    touched,
    checks,
    ruled: undefined,
    nested: undefined,
    repos: undefined,
    rollsBack: rolls,
    rollbackTo: ctx.inRepo ? ((rolls ? state.last_green : phase.headBefore) ?? null) : null,
    rescueRef: rescueRef(state.run_id, n),
  };
  const judged = (name: string) => agentOk && !refusedBefore(facts, name);
  // With repos, settleRepos checks the rules and nested work over every repository's changes.
  if (judged('rules') && !config.repos) facts.ruled = await checkRules(ctx, n, phase, approvals, walked);
  if (judged('nested-repos') && !config.repos) facts.nested = await nestedRepoRefusal(ctx);
  // repos: each changed repository's gates and rules (its commit and push follow in settleWork).
  if (judged('repos') && config.repos)
    facts.repos = await settleRepos(
      ctx,
      {
        iteration: n,
        hat: phase.route.hatId,
        backend: phase.route.backend.name,
        summary: phase.finalText,
        completionRequested: checks.completionRequested === true,
      },
      approvals,
    );
  return facts;
}
