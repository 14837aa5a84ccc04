import { RalphError } from '../../errors.ts';
import { commitIdentities } from '../../git/commit.ts';
import { readGitHead } from '../../git/head.ts';
import { pushWithRetry } from '../../git/push.ts';
import type { HeldCommit } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import type { GateResult } from '../gates/checks/run-gate.ts';
import { commitIteration, commitMessage, filesChanged } from './workspace-git.ts';

export interface CommitInput extends HeldCommit {
  iteration: number;
}

/** The tests gate as the commit message names it. */
export function testsLine(tests: GateResult | undefined): string | null {
  return tests ? (tests.passed ? 'passing' : `failing (exit ${tests.exitCode})`) : null;
}

/** One repository of `repos` a git step works in instead of the workspace. */
export interface RepoTarget {
  name: string;
  root: string;
}

/**
 * Commits the iteration's work (`git.commit`) in the workspace, or in `repo` (one of `repos`);
 * returns the commit, or null when nothing changed.
 */
export async function commitStep(
  ctx: RunContext,
  input: CommitInput,
  repo?: RepoTarget,
): Promise<string | null> {
  const { iteration, hat } = input;
  // Never a commit for a workspace another loop holds (gates and human waits came since the agent).
  ctx.holdLock();
  const workspace = repo?.root ?? ctx.options.workspace;
  const files = await filesChanged(
    workspace,
    input.before,
    readGitHead(workspace).commit ?? null,
    repo === undefined ? ctx.pendingChanges : undefined,
  );
  // Built from the agent's summary and file names: the whole message goes out redacted.
  const message = ctx.redact(
    commitMessage({
      summary: input.summary,
      iteration,
      hat,
      backend: input.backend,
      files,
      tests: input.tests,
    }),
  );
  if (files.length > 0) await refuseSecretIdentity(ctx, workspace);
  const made = await commitIteration(workspace, message);
  if (made)
    ctx.emit({
      type: 'git.committed',
      iteration,
      commit: made,
      message,
      ...(repo ? { repo: repo.name } : {}),
    });
  return made;
}

/**
 * An identity is recorded in the commit as it is (Ralph cannot redact a name it did not choose):
 * one holding a secret (an agent's `git config user.name`) is refused before the commit is made.
 */
async function refuseSecretIdentity(ctx: RunContext, workspace: string): Promise<void> {
  const ids = await commitIdentities(workspace);
  for (const role of ['author', 'committer'] as const) {
    const shown = ctx.redact(ids[role]);
    if (shown === ids[role]) continue;
    throw new RalphError(
      'git_secret',
      `refusing to commit: the commit ${role} contains a secret (${shown}); set user.name and user.email (\`git config user.name "<name>"\`), then \`ralph run --resume\`; the changes are left uncommitted`,
    );
  }
}

/** Pushes the current branch (of the workspace, or of `repo`); returns an error message when every attempt failed. */
export async function pushStep(
  ctx: RunContext,
  iteration: number,
  repo?: RepoTarget,
): Promise<string | undefined> {
  const { config, emit } = ctx;
  const root = repo?.root ?? ctx.options.workspace;
  const branch = readGitHead(root).branch;
  if (!branch || branch === '(detached)') return 'cannot push: HEAD is detached';
  try {
    await pushWithRetry(root, {
      remote: config.git.remote,
      branch,
      attempts: config.git.push_attempts,
      delayMs: config.git.push_retry_delay_seconds * 1000,
      redact: ctx.redact,
      onAttempt: (n, error) =>
        emit({
          type: 'notice',
          level: 'warn',
          message: `git push failed (attempt ${n}/${config.git.push_attempts}): ${error.message.split('\n')[0]}`,
        }),
    });
    emit({
      type: 'git.pushed',
      iteration,
      remote: config.git.remote,
      branch,
      ...(repo ? { repo: repo.name } : {}),
    });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
