import { approvalPoints } from '../../config/human-checks.ts';
import type { ApprovalPointName } from '../../config/schema.ts';
import type { QuestionRecord } from '../../human/control-files.ts';
import type { IterationRecord } from '../../state/iteration-record-shape.ts';
import { listFiles, uncommittedFiles } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import { queueGuidance } from './control-inbox.ts';
import { askHuman, humanTimeoutMessage } from './human-wait.ts';

export type ApprovalEntry = NonNullable<IterationRecord['approvals']>[number];

/** How a settled approval is recorded in the iteration record. */
export function approvalEntry(point: string, r: QuestionRecord): ApprovalEntry {
  return {
    point,
    id: r.id,
    answer: r.answer ?? '',
    by: r.by ?? 'withdrawn',
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

/**
 * How a review point ended: go on, or not (a rejection's reason is queued as the next iteration's
 * feedback). `held`: a stop or Ctrl-C came first; the approval stays open for `--resume`.
 */
export type ApprovalResult =
  | { ok: true; entry: ApprovalEntry | undefined }
  | { ok: false; reason: string; entry: ApprovalEntry | undefined; held?: true };

const LABEL: Record<ApprovalPointName, string> = {
  before_commit: 'the commit',
  before_push: 'the push',
  before_complete: 'completion',
};

/**
 * A review point of `gates.approval` (seed 002's "human review points"): waits for `ralph approve`
 * or `ralph reject "why"`. A rejection's reason becomes the next prompt's feedback; no answer in
 * time follows `human.on_timeout` (`continue` goes on, `stop` ends the run at the next boundary).
 * A stop or Ctrl-C holds it (`state.held_question`): `--resume` returns to the same approval.
 */
export async function reviewPoint(
  ctx: RunContext,
  point: ApprovalPointName,
  iteration: number,
  text: string,
): Promise<ApprovalResult> {
  if (!approvalPoints(ctx.config).includes(point)) return { ok: true, entry: undefined };
  const outcome = await askHuman(ctx, { kind: 'approval', text, point, hold: true });
  const r = outcome.record;
  if (outcome.kind === 'abandoned')
    return {
      ok: false,
      reason: `the run was stopped while waiting for approval of ${LABEL[point]} (${r.id}; \`ralph run --resume\` asks it again)`,
      entry: undefined,
      held: true,
    };
  const entry = approvalEntry(point, r);
  if (outcome.kind === 'timeout') {
    if (ctx.config.human.on_timeout === 'continue') return { ok: true, entry };
    ctx.state.human_timeout = humanTimeoutMessage(
      ctx,
      `the approval of ${LABEL[point]} in iteration ${iteration}`,
    );
    return { ok: false, reason: ctx.state.human_timeout, entry };
  }
  if (r.answer === 'approve') return { ok: true, entry };
  const reason = r.reason ?? '(no reason given)';
  queueGuidance(ctx.state, {
    id: r.id,
    kind: 'rejection',
    text: `A human rejected ${LABEL[point]} of iteration ${iteration}: ${reason}`,
    source: r.by ?? 'cli',
  });
  return { ok: false, reason, entry };
}

/** A review point whose settled approval goes into the iteration record. */
async function recordedReviewPoint(
  ctx: RunContext,
  point: ApprovalPointName,
  number: number,
  text: string,
  approvals: ApprovalEntry[],
): Promise<ApprovalResult> {
  const review = await reviewPoint(ctx, point, number, text);
  if (review.entry) approvals.push(review.entry);
  return review;
}

/**
 * The `before_commit` review point, asked only when there is something to commit. Rejected (or not
 * approved in time, or held), the changes stay in the tree uncommitted and the next iteration (or
 * the resumed review point) builds on them.
 */
export async function approveCommit(
  ctx: RunContext,
  number: number,
  approvals: ApprovalEntry[],
  /** repos: every repository's changed files, each under its repository's path. */
  changed?: string[],
): Promise<ApprovalResult> {
  const files = changed ?? (await uncommittedFiles(ctx.options.workspace, ctx.pendingChanges));
  if (files.length === 0) return { ok: true, entry: undefined };
  const review = await recordedReviewPoint(
    ctx,
    'before_commit',
    number,
    `Commit the changes of iteration ${number} (${files.length} file(s): ${listFiles(files)})?`,
    approvals,
  );
  keepUncommitted(ctx.state, !review.ok);
  return review;
}

/** The `before_push` review point; rejected, the commits stay local until a later push. */
export async function approvePush(
  ctx: RunContext,
  number: number,
  approvals: ApprovalEntry[],
): Promise<ApprovalResult> {
  return recordedReviewPoint(
    ctx,
    'before_push',
    number,
    `Push the commits of iteration ${number} to ${ctx.config.git.remote}?`,
    approvals,
  );
}

/** The `before_complete` review point: a human accepts completion, or it is blocked. */
export async function approveCompletion(
  ctx: RunContext,
  number: number,
  approvals: ApprovalEntry[],
): Promise<ApprovalResult> {
  return recordedReviewPoint(
    ctx,
    'before_complete',
    number,
    `Iteration ${number} says the work is complete. Accept completion?`,
    approvals,
  );
}

/** Whether the last changes stay uncommitted (refused, rejected or not approved): the next iteration builds on them. */
export function keepUncommitted(state: RunContext['state'], uncommitted = true): void {
  state.uncommitted_changes = uncommitted;
}
