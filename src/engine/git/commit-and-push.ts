import type { GateResult } from '../../gates/run-gate.ts';
import { readGitHead } from '../../git/head.ts';
import { pushWithRetry } from '../../git/push.ts';
import type { HeldCommit } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { commitIteration, commitMessage, filesChanged } from './workspace-git.ts';

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
