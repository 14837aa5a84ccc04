import { statSync } from 'node:fs';
import type { RalphConfig } from '../config/schema.ts';
import { runRedactor } from '../engine/context/run-redactor.ts';
import { sleepUntilCommand } from '../engine/run/idle-wait.ts';
import { RalphError } from '../errors.ts';
import { type ForgeSession, openForge, type PullRequest, pullRequestPollMs } from '../forge/open-forge.ts';
import { configuredRemoteUrl, fetchRemoteBranch, isAncestor, resolveCommit } from '../git/branches.ts';
import { pushWithRetry } from '../git/push.ts';
import { formatCost } from '../observe/format.ts';
import type { ParallelEvent } from '../observe/parallel-events.ts';
import type { ParallelTask } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import type { TaskIssue } from '../state/tasks/task.ts';
import { readTasks } from '../state/tasks/task-file.ts';
import { fastForward, type MergeOutcome } from './merge-queue.ts';
import { worktreeBranch } from './worktrees.ts';

/** `merge.via: pull_request`: the forge of `git.remote`, checked before any task is claimed. */
export async function openMergeForge(
  workspace: string,
  config: RalphConfig,
  env: NodeJS.ProcessEnv,
): Promise<ForgeSession | undefined> {
  if (config.merge.via !== 'pull_request') return undefined;
  const remote = config.git.remote;
  const url = await configuredRemoteUrl(workspace, remote);
  if (url === undefined)
    throw new RalphError(
      'forge_unsupported',
      `merge.via: pull_request needs a remote "${remote}" on GitHub (git.remote): \`git remote add ${remote} https://github.com/<owner>/<repo>.git\`, or set merge.via: fast_forward`,
    );
  return openForge({
    remote: { name: remote, url },
    host: config.forge.host,
    env,
    workspace,
    redact: runRedactor(env, config),
  });
}

/** What landing a task through its pull request needs from the merge queue. */
export interface LandingDeps {
  forge: ForgeSession;
  root: string;
  target: string;
  config: RalphConfig;
  env: NodeJS.ProcessEnv;
  runId: string;
  /** The coordinating workspace's control inbox: a command there (`ralph resume`) polls at once. */
  inbox: string;
  persist(): void;
  emit(event: ParallelEvent): void;
  /** Aborted when the run stops (Ctrl-C, `ralph stop`, a limit): the wait ends, the task stays queued. */
  halted: AbortSignal;
}

/**
 * The pull request body: the task, the gates on the rebased tree, and what its workers spent; for a
 * task imported from a GitHub issue, `Fixes owner/repo#N`, so the merge closes the issue.
 */
export function taskPullRequestBody(
  task: ParallelTask,
  target: string,
  runId: string,
  issue?: Pick<TaskIssue, 'repo' | 'number'>,
): string {
  const runs = Object.values(task.runs);
  const cost = runs.reduce((n, r) => n + r.cost_usd, 0);
  return [
    `Task **${task.title}** of Ralph's parallel run \`${runId}\` (task \`${task.id}\`).`,
    ...(issue ? ['', `Fixes ${issue.repo}#${issue.number}`] : []),
    ...(task.body ? ['', task.body] : []),
    '',
    '### Gates',
    `- ${task.last_gate?.summary ?? 'no gates'} (on the branch rebased onto \`${target}\`)`,
    '',
    `Cost: ${formatCost(cost)} over ${runs.length} worker run${runs.length === 1 ? '' : 's'}.`,
    '',
  ].join('\n');
}

const inboxSize = (inbox: string) => statSync(inbox, { throwIfNoEntry: false })?.size ?? 0;

/**
 * Lands a task whose rebased branch passed the gates through a pull request: the branch is pushed,
 * a pull request opened (an open one for the branch is adopted, never a second), and the queue
 * waits for its merge, polling once a minute (at once on a control command). Merged: the target
 * follows the remote's. Closed unmerged: the task is failed.
 */
export async function landThroughPullRequest(
  task: ParallelTask,
  dir: string,
  d: LandingDeps,
): Promise<MergeOutcome | null> {
  const branch = worktreeBranch(task.worktree);
  const remote = d.forge.remote;
  if (task.pr?.status !== 'open') {
    try {
      await pushWithRetry(dir, {
        remote,
        branch,
        attempts: d.config.git.push_attempts,
        delayMs: d.config.git.push_retry_delay_seconds * 1000,
        redact: runRedactor(d.env, d.config),
      });
    } catch (error) {
      return { kind: 'needs_review', reason: (error as Error).message };
    }
    const found = await d.forge.pulls.findOpen(branch);
    const pr =
      found ??
      (await d.forge.pulls.open({
        title: task.title,
        body: taskPullRequestBody(
          task,
          d.target,
          d.runId,
          readTasks(ralphPaths(d.root).tasks).find((t) => t.id === task.id)?.issue,
        ),
        head: branch,
        base: d.target,
        draft: false,
      }));
    task.pr = { number: pr.number, url: pr.url, head: branch, base: d.target, status: 'open' };
    d.persist();
    announce(d, task, found ? 'adopted' : 'opened');
  }
  const pr = task.pr;
  let announced = false;
  for (;;) {
    const offset = inboxSize(d.inbox);
    let now: PullRequest | undefined;
    try {
      now = await d.forge.pulls.get(pr.number);
    } catch (error) {
      // The forge being away is no reason to give up the task: the next poll asks again.
      d.emit({
        type: 'merge.pull_request',
        task: task.id,
        title: task.title,
        action: 'unreachable',
        number: pr.number,
        url: pr.url,
        message: (error as Error).message,
      });
    }
    if (now?.merged) {
      pr.status = 'merged';
      d.persist();
      announce(d, task, 'merged');
      if (!(await fetchRemoteBranch(d.root, remote, d.target)))
        return {
          kind: 'needs_review',
          reason: `PR #${pr.number} was merged, but ${remote} has no branch ${d.target} to follow`,
        };
      const remoteHead = (await resolveCommit(d.root, `refs/remotes/${remote}/${d.target}`)) as string;
      // The target follows the remote's, which holds the task now (merged, squashed or rebased).
      const refused = (await isAncestor(d.root, d.target, remoteHead))
        ? await fastForward(d.root, d.target, remoteHead)
        : `${d.target} has commits ${remote}/${d.target} lacks`;
      if (refused)
        return {
          kind: 'needs_review',
          reason: `PR #${pr.number} was merged, but ${d.target} cannot follow ${remote}/${d.target}: ${refused}`,
        };
      return { kind: 'merged', commit: remoteHead };
    }
    if (now?.state === 'closed') {
      pr.status = 'closed';
      d.persist();
      announce(d, task, 'closed');
      return {
        kind: 'failed',
        reason: `PR #${pr.number} was closed without being merged (${pr.url}); its branch ${branch} is kept`,
      };
    }
    if (!announced) announce(d, task, 'waiting');
    announced = true;
    if (d.halted.aborted) return null;
    await sleepUntilCommand(
      {
        workspace: d.root,
        inbox: d.inbox,
        inboxOffset: offset,
        maxWaitMs: Number.POSITIVE_INFINITY,
        signal: d.halted,
      },
      pullRequestPollMs(d.env),
    );
    if (d.halted.aborted) return null;
  }
}

function announce(
  d: LandingDeps,
  task: ParallelTask,
  action: 'opened' | 'adopted' | 'waiting' | 'merged' | 'closed',
): void {
  const pr = task.pr;
  if (pr)
    d.emit({
      type: 'merge.pull_request',
      task: task.id,
      title: task.title,
      action,
      number: pr.number,
      url: pr.url,
    });
}
