import { withdrawIfOpen } from '../../human/control-files.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { rememberTree } from '../gates/work-progress.ts';
import { validationStop } from '../iteration/iteration-stop.ts';
import { settleWork } from '../iteration/settle-work.ts';
import { abandonedWaitStop, forgetHeldQuestion } from '../steering/human-wait.ts';
import { boundaryStop } from './between-iterations.ts';

/**
 * `--resume` of a run stopped at a review point (`gates.approval`): waits for the same approval
 * again (an answer given meanwhile counts), then goes on where the iteration was held — the commit
 * (validate, push), the push, completion, each after its own review point. Rejected, the loop goes
 * on as each point documents. (A held `human.interact` question is asked by `answerInteractions`.)
 */
export async function settleHeldReview(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  const held = state.held_question;
  if (!held?.point) return undefined;
  const { iteration, commit, completes, repos } = held;
  const work = await settleWork(
    ctx,
    {
      iteration,
      hat: commit?.hat ?? null,
      commit: commit ? { ...commit, iteration } : undefined,
      completes,
      repos,
    },
    // Not recorded: the iteration's record was written when it was held.
    [],
    held.point,
  );
  if (work.held) return abandonedWaitStop(ctx);
  if (state.held_question?.id === held.id) {
    // Not asked at all (the point is no longer configured, nothing is left to commit): withdrawn.
    withdrawIfOpen(ctx.paths.questions, held.id, ctx.now());
    forgetHeldQuestion(state);
  }
  if (work.commit) await rememberTree(ctx);
  ctx.persist();
  if (work.commitError) return stop('error', work.commitError);
  if (work.validateGate && !work.validateGate.passed) return validationStop(work.validateGate, work.commit);
  if (work.pushError) return stop('push_failed', work.pushError);
  if (completes !== null && work.blocked === undefined) return stop('completed', completes);
  return boundaryStop(ctx);
}
