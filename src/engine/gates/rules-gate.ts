import { listFiles } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import { type ApprovalEntry, approvalEntry } from '../steering/approval-points.ts';
import { askHuman } from '../steering/human-wait.ts';
import { type IterationStart, iterationChanges } from './changed-files.ts';
import { checkPathRules, describeViolations } from './checks/path-rules.ts';
import { unknownStartReason } from './rules-start.ts';

/** Why the rules refuse an iteration: a rule it broke (`rule_violation`), or a human's no. */
export interface RulesRefusal {
  why: string;
  /** A file inside `deny` or outside `allow` (verdict `rule_violation`); false: approval refused. */
  violation: boolean;
}

/**
 * `rules` on the iteration's changed files, whatever the agent did: what git reports
 * (changed-files.ts: commits and the work tree) plus `walked`, the files under the rules'
 * directories that changed on disk (rules-start.ts: git-ignored, index-hidden or excluded ones
 * included; null when the iteration's start is unknown, which refuses it). A broken rule refuses
 * it; files inside `approve` wait for `ralph approve` / `ralph reject` (the same questions file,
 * TUI, dashboard and chat as `gates.approval`). Undefined: the iteration stands.
 */
export async function checkRules(
  ctx: RunContext,
  iteration: number,
  start: IterationStart,
  approvals: ApprovalEntry[],
  walked?: readonly string[] | null,
): Promise<RulesRefusal | undefined> {
  if (!ctx.config.rules) return undefined;
  if (walked === null) return { why: `rule_violation: ${unknownStartReason(ctx)}`, violation: true };
  const changes = await iterationChanges(ctx, start);
  if (!changes && !walked) return undefined;
  // The tests report is Ralph's own file, never the agent's change.
  const own = ctx.config.gates.tests?.report_file?.replace(/^\.\//, '');
  const fromGit = [...(changes?.files ?? []), ...(changes?.deleted ?? [])];
  const refusal = await judgeRules(
    ctx,
    iteration,
    [...fromGit, ...(walked ?? [])].filter((f) => f !== own),
    approvals,
  );
  return refusal?.violation
    ? { ...refusal, why: refusal.why + notRolledBack(ctx, fromGit, walked) }
    : refusal;
}

/** What a rollback cannot put back: refused files git does not show (ignored, or hidden from it). */
function notRolledBack(
  ctx: RunContext,
  fromGit: readonly string[],
  walked: readonly string[] | undefined,
): string {
  const shown = new Set(fromGit);
  const hidden = (walked ?? []).filter((f) => !shown.has(f));
  const refused = checkPathRules(ctx.config.rules ?? {}, hidden).violations.map((v) => v.file);
  if (refused.length === 0) return '';
  return `. git does not show ${listFiles(refused)} (ignored, or hidden from it), so a rollback cannot put it back: restore it as it was (the next iterations are judged from this one's start, and refused while it differs)`;
}

/**
 * `rules` on a list of changed paths relative to the workspace (one repository's files, or with
 * `repos` the union of the repositories' files, each under its repository's path): a broken rule
 * refuses the iteration; an `approve` path waits for a person.
 */
export async function judgeRules(
  ctx: RunContext,
  iteration: number,
  changed: string[],
  approvals: ApprovalEntry[],
): Promise<RulesRefusal | undefined> {
  const rules = ctx.config.rules;
  if (!rules) return undefined;
  const verdict = checkPathRules(rules, changed);
  if (verdict.violations.length > 0)
    return { why: `rule_violation: it changed ${describeViolations(verdict.violations)}`, violation: true };
  if (verdict.needsApproval.length === 0) return undefined;
  const files = listFiles(verdict.needsApproval);
  const outcome = await askHuman(ctx, {
    kind: 'approval',
    text: `Iteration ${iteration} changed files that need a person (rules.approve): ${files}. Keep the change?`,
  });
  const r = outcome.record;
  approvals.push(approvalEntry('rules', r));
  if (outcome.kind === 'answered' && r.answer === 'approve') return undefined;
  const because =
    outcome.kind === 'answered' ? (r.reason ?? 'no reason given') : `no approval (${outcome.kind})`;
  return {
    why: `a human did not approve its change of ${files} (rules.approve): ${because}`,
    violation: false,
  };
}
