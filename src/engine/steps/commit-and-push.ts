import { type GateResult, validateCommand } from '../../gates/run-gate.ts';
import { pushWithRetry } from '../../git/git.ts';
import { readGitHead } from '../../git/head.ts';
import type { HeldCommit } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { type ApprovalEntry, approvePush } from './approval-step.ts';
import { runValidateGate } from './gate-steps.ts';
import { commitIteration, commitMessage, filesChanged } from './git-step.ts';

export interface CommitInput extends HeldCommit {
  iteration: number;
}

/** The tests gate as the commit message names it. */
export function testsLine(tests: GateResult | undefined): string | null {
  return tests ? (tests.passed ? 'passing' : `failing (exit ${tests.exitCode})`) : null;
}

/** Commits the iteration's work (`git.commit`); returns the commit, or null when nothing changed. */
export async function commitStep(ctx: RunContext, input: CommitInput): Promise<string | null> {
  const { iteration, hat } = input;
  const workspace = ctx.options.workspace;
  const files = await filesChanged(
    workspace,
    input.before,
    readGitHead(workspace).commit ?? null,
    ctx.pendingChanges,
  );
  const message = commitMessage({
    summary: input.summary,
    iteration,
    hat,
    backend: input.backend,
    files,
    tests: input.tests,
  });
  const made = await commitIteration(workspace, message);
  if (made) ctx.emit({ type: 'git.committed', iteration, commit: made, message });
  return made;
}

/** What git and the validate hook did after an accepted iteration. */
export interface CommittedWork {
  commit: string | null;
  validateGate: GateResult | undefined;
  pushError: string | undefined;
  /** A stop or Ctrl-C came while `before_push` waited: the approval is held for `--resume`. */
  pushHeld: boolean;
}

/**
 * Git and the validate hook after an iteration whose agent succeeded: commit first (`commit` given:
 * approved, or no review point), so a fatal gate leaves the work committed locally; then validate,
 * then push (after `before_push`). The same tail runs when a held `before_commit` is approved.
 */
export async function commitValidatePush(
  ctx: RunContext,
  work: { iteration: number; hat: string | null; commit: CommitInput | undefined },
  approvals: ApprovalEntry[],
): Promise<CommittedWork> {
  const { config } = ctx;
  const commit = work.commit ? await commitStep(ctx, work.commit) : null;
  const validate = validateCommand(config, ctx.options.workspace);
  const validateGate = validate ? await runValidateGate(ctx, work.iteration, work.hat, validate) : undefined;
  const validateFailed = validateGate !== undefined && !validateGate.passed;
  const push =
    config.git.push && !validateFailed ? await approvePush(ctx, work.iteration, approvals) : undefined;
  const pushError = push?.ok ? await pushStep(ctx, work.iteration) : undefined;
  return { commit, validateGate, pushError, pushHeld: push?.ok === false && push.held === true };
}

/** Pushes the current branch; returns an error message when every attempt failed. */
export async function pushStep(ctx: RunContext, iteration: number): Promise<string | undefined> {
  const { config, emit } = ctx;
  const branch = readGitHead(ctx.options.workspace).branch;
  if (!branch || branch === '(detached)') return 'cannot push: HEAD is detached';
  try {
    await pushWithRetry(ctx.options.workspace, {
      remote: config.git.remote,
      branch,
      attempts: config.git.push_attempts,
      delayMs: config.git.push_retry_delay_seconds * 1000,
      onAttempt: (n, error) =>
        emit({
          type: 'notice',
          level: 'warn',
          message: `git push failed (attempt ${n}/${config.git.push_attempts}): ${error.message.split('\n')[0]}`,
        }),
    });
    emit({ type: 'git.pushed', iteration, remote: config.git.remote, branch });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
