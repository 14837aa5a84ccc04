import type { ApprovalPointName } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import type { HeldCommit } from '../../state/loop-state.ts';
import { type CommitInput, commitStep, pushStep, testsLine } from '../commit/commit-and-push.ts';
import type { RunContext } from '../context/run-context.ts';
import { type GateResult, validateCommand } from '../gates/checks/run-gate.ts';
import { runValidateGate } from '../gates/gate-commands.ts';
import { commitRepos, pushRepos, repoChanges, workspacePath } from '../repos/repo-commits.ts';
import {
  type ApprovalEntry,
  type ApprovalResult,
  approveCommit,
  approveCompletion,
  approvePush,
} from '../steering/approval-points.ts';
import { cleanAgentFiles } from './clean-agent-files.ts';
import type { AgentPhase } from './iteration-agent.ts';
import type { AfterAgentChecks } from './iteration-decision.ts';

/** What an iteration whose agent succeeded leaves for git, the validate hook and the review points. */
export interface AcceptedWork {
  iteration: number;
  hat: string | null;
  /** What to commit (`git.commit`), or undefined. */
  commit: CommitInput | undefined;
  /** How the run completes when every review point lets it (null: the iteration does not complete). */
  completes: string | null;
  /** repos: the repositories the iteration changed (they commit and push, each on its own). */
  repos?: string[] | undefined;
}

export interface SettledWork {
  commit: string | null;
  validateGate: GateResult | undefined;
  pushError: string | undefined;
  /** A commit Ralph refused to make (its identity holds a secret): the changes stay uncommitted. */
  commitError?: string | undefined;
  /** Why completion does not stand: a human did not let the commit in or did not accept it, or a stop held a point. */
  blocked: string | undefined;
  /** A stop or Ctrl-C came while a review point waited: it is held (`state.held_question`) for --resume. */
  held: boolean;
  /** repos: each repository's commit (git.commit). */
  repoCommits?: Record<string, string | null>;
  /** repos: the repositories whose push failed, with the error. */
  repoPushErrors?: Record<string, string>;
}

/**
 * The steps after an accepted agent run, in the order of the review points (`gates.approval`):
 * before_commit → commit → validate → before_push → push → before_complete. A held point stops the
 * sequence; `--resume` runs it again from that point (`from`) with what the iteration saved.
 */
export async function settleWork(
  ctx: RunContext,
  work: AcceptedWork,
  approvals: ApprovalEntry[],
  from: ApprovalPointName = 'before_commit',
): Promise<SettledWork> {
  const { config } = ctx;
  const out: SettledWork = {
    commit: null,
    validateGate: undefined,
    pushError: undefined,
    blocked: undefined,
    held: false,
  };
  const hold = (review: ApprovalResult, point: ApprovalPointName): SettledWork => {
    const held = ctx.state.held_question;
    if (held) {
      held.completes = work.completes;
      held.commit = point === 'before_commit' && work.commit ? heldCommit(work.commit) : null;
      if (work.repos) held.repos = work.repos;
    }
    return { ...out, held: true, blocked: review.ok ? undefined : review.reason };
  };
  if (from === 'before_commit') {
    if (work.commit) {
      // The gates ran agent-written code after the turn's clean: what goes before the reviewer and
      // into the commit is cleaned again here, after the last code that is not Ralph's.
      cleanAgentFiles(ctx);
      // Rejected (or not approved in time), the changes stay uncommitted: no completion.
      // repos: one review point listing every repository's changes, then a commit in each.
      const changed = config.repos
        ? (await repoChanges(ctx)).flatMap(({ repo, files }) =>
            files.map((f) => workspacePath(ctx.options.workspace, repo, f)),
          )
        : undefined;
      const review = await approveCommit(ctx, work.iteration, approvals, changed);
      if (!review.ok && review.held) return hold(review, 'before_commit');
      try {
        if (review.ok && config.repos) out.repoCommits = await commitRepos(ctx, work.commit);
        else if (review.ok) out.commit = await commitStep(ctx, work.commit);
      } catch (error) {
        if (!(error instanceof RalphError) || error.code !== 'git_secret') throw error;
        out.commitError = error.message;
        out.blocked = error.message;
        return out;
      }
      if (!review.ok) out.blocked = `a human did not approve the commit: ${review.reason}`;
    }
    // After the commit: a fatal gate leaves the work committed locally.
    const validate = validateCommand(config, ctx.options.workspace);
    out.validateGate = validate ? await runValidateGate(ctx, work.iteration, work.hat, validate) : undefined;
    if (out.validateGate && !out.validateGate.passed) return out;
  }
  if (from !== 'before_complete' && config.git.push && (!config.repos || work.repos?.length)) {
    // Rejected, the commits stay local until a later push; completion still stands.
    const review = await approvePush(ctx, work.iteration, approvals);
    if (!review.ok && review.held) return hold(review, 'before_push');
    if (review.ok && config.repos) {
      // repos: each changed repository pushes; the first failure, named, stops the run.
      out.repoPushErrors = await pushRepos(ctx, work.iteration, work.repos ?? []);
      const [failed] = Object.entries(out.repoPushErrors);
      out.pushError = failed ? `repository ${failed[0]}: ${failed[1]}` : undefined;
    } else if (review.ok) out.pushError = await pushStep(ctx, work.iteration);
    if (out.pushError) return out;
  }
  if (work.completes !== null && out.blocked === undefined) {
    const review = await approveCompletion(ctx, work.iteration, approvals);
    if (!review.ok && review.held) return hold(review, 'before_complete');
    if (!review.ok) out.blocked = `a human did not accept completion: ${review.reason}`;
  }
  return out;
}

/** What a held `before_commit` commits once approved (saved in state.json). */
function heldCommit({ iteration: _, ...commit }: CommitInput): HeldCommit {
  return commit;
}

/** What the iteration commits (`git.commit`). */
export function commitInput(phase: AgentPhase, checks: AfterAgentChecks): CommitInput {
  return {
    iteration: phase.number,
    hat: phase.route.hatId,
    backend: phase.route.backend.name,
    summary: phase.finalText,
    before: phase.headBefore,
    tests: testsLine(checks.testsGate),
  };
}
