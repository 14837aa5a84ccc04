import { withdrawIfOpen } from '../../human/control-files.ts';
import type { HeldQuestion } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { validationStop } from '../iteration/iteration-stop.ts';
import {
  type ApprovalEntry,
  type ApprovalResult,
  approveCommit,
  approveCompletion,
  approvePush,
} from '../steps/approval-step.ts';
import { commitValidatePush, pushStep } from '../steps/commit-and-push.ts';
import { abandonedWaitStop } from '../steps/human-wait.ts';
import { rememberTree } from '../steps/progress-step.ts';
import { boundaryStop } from './between-iterations.ts';

/**
 * `--resume` of a run stopped at a review point (`gates.approval`): waits for the same approval
 * again (an answer given meanwhile counts), then does what the iteration left for it — the commit
 * (then validate and push), the push, or completion. Rejected, the loop goes on as each point
 * documents. (A held `human.interact` question is asked again by `answerInteractions`.)
 */
export async function settleHeldReview(ctx: RunContext): Promise<Stop | undefined> {
  const held = ctx.state.held_question;
  if (!held?.point) return undefined;
  const { iteration, completes } = held;
  // Not recorded: the iteration's record was written when it was held.
  const approvals: ApprovalEntry[] = [];
  const review =
    held.point === 'before_commit'
      ? await approveCommit(ctx, iteration, approvals)
      : held.point === 'before_push'
        ? await approvePush(ctx, iteration, approvals)
        : await approveCompletion(ctx, iteration, approvals);
  if (review.ok === false && review.held) return abandonedWaitStop(ctx);
  // Settled, or nothing left to ask (the point is no longer configured, the changes are gone).
  if (!review.entry) withdrawIfOpen(ctx.paths.questions, held.id, ctx.now());
  ctx.state.held_question = null;
  const after = await passPoint(ctx, held, review);
  ctx.persist();
  if (after) return after;
  // A rejected push keeps the commits local; the iteration still completes (as when not held).
  if (completes !== null && (review.ok || held.point === 'before_push')) return stop('completed', completes);
  return boundaryStop(ctx);
}

/** The step the review point guarded, once approved; a stop when it failed or was held again. */
async function passPoint(
  ctx: RunContext,
  held: HeldQuestion,
  review: ApprovalResult,
): Promise<Stop | undefined> {
  const { iteration, commit } = held;
  if (!review.ok) return undefined;
  if (held.point === 'before_push') {
    const error = await pushStep(ctx, iteration);
    return error ? stop('push_failed', error) : undefined;
  }
  if (held.point !== 'before_commit' || !commit) return undefined;
  const work = await commitValidatePush(
    ctx,
    { iteration, hat: commit.hat, commit: { ...commit, iteration } },
    [],
  );
  if (work.commit) await rememberTree(ctx);
  if (work.validateGate && !work.validateGate.passed) return validationStop(work.validateGate, work.commit);
  if (work.pushError) return stop('push_failed', work.pushError);
  if (work.pushHeld && ctx.state.held_question) {
    // Committed; now the push waits, and completion after it.
    ctx.state.held_question.completes = held.completes;
    return abandonedWaitStop(ctx);
  }
  return undefined;
}
