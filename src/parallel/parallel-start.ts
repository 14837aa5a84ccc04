import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import type { RalphConfig } from '../config/schema.ts';
import type { StartMode } from '../engine/context/run-options.ts';
import { preflight } from '../engine/readiness/preflight.ts';
import { importGithubIssues } from '../engine/workflow-steps/issue-tasks.ts';
import { RalphError } from '../errors.ts';
import { describeRefusal, repoState } from '../git/repo-state.ts';
import { runGit } from '../git/run-git.ts';
import { readInbox } from '../human/control-files.ts';
import type { ParallelPaths, ParallelState } from '../state/parallel-files.ts';
import { readParallelState } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import { ensureRuntimeIgnored } from '../state/runtime-ignore.ts';
import type { ParallelStop } from './parallel-decide.ts';
import { readyFromSource, sourceFile, type TaskSourceKind, taskSourceOf } from './task-source.ts';
import { repoRoot } from './worktrees.ts';

export interface OpenedRun {
  state: ParallelState;
  repo: string;
  kind: TaskSourceKind;
  sourceFile: string;
  resumed: boolean;
}

const NO_TASKS: Record<TaskSourceKind, string> = {
  tasks: 'add some with `ralph tools task add "TITLE"` (or use a checklist or IMPLEMENTATION_PLAN.md)',
  checklist: 'every task of the checklist is checked',
  plan: 'IMPLEMENTATION_PLAN.md has no item under "## Remaining Tasks"',
};

/**
 * Checks the workspace can coordinate a parallel run and opens its state: the unfinished run goes
 * on (claims, worktrees and the merge queue as they were), or a new one starts.
 */
export async function openParallelRun(
  o: {
    workspace: string;
    config: RalphConfig;
    workers: number;
    mode?: StartMode | undefined;
    env?: NodeJS.ProcessEnv | undefined;
  },
  paths: ParallelPaths,
  now: () => number,
): Promise<OpenedRun> {
  if (!Number.isInteger(o.workers) || o.workers < 1)
    throw new RalphError('usage', `--parallel expects a positive number of workers, got ${o.workers}`);
  const repo = await repoRoot(o.workspace, { needs: 'a parallel run (--parallel)' });
  const rs = await repoState(o.workspace);
  const refusal = describeRefusal(rs);
  if (refusal) throw new RalphError('git_state', refusal);
  if (rs.head === null)
    throw new RalphError(
      'not_a_git_repo',
      'a parallel run needs a first commit to branch the workers from: commit first',
    );
  // Workers start from the target's commits: uncommitted edits would be invisible to them and could
  // block the fast-forward of the target.
  const dirty = (await runGit(o.workspace, ['status', '--porcelain', '--untracked-files=no']))
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.slice(3).startsWith('.ralph/'));
  if (dirty.length > 0)
    throw new RalphError(
      'dirty_tree',
      `a parallel run needs the target's tracked files committed (workers start from ${rs.branch}'s commits); uncommitted: ${dirty
        .slice(0, 5)
        .map((l) => l.slice(3))
        .join(', ')} — commit or stash them first`,
    );
  // What every worker would stop on at once (no agent CLI, a missing gate program …) stops here,
  // before any task is claimed or failed.
  const checks = await preflight(
    o.workspace,
    { ...o.config, git: { ...o.config.git, require_clean: false, push: false } },
    o.env ?? process.env,
  );
  const fatal = checks.find((c) => c.level === 'fatal');
  if (fatal) throw new RalphError('preflight', `${fatal.check}: ${fatal.message}`);
  await commitRuntimeIgnore(o.workspace);
  // tasks.source: github: the open issues become tasks before any is handed out.
  if (o.config.tasks.source === 'github')
    await importGithubIssues({
      workspace: o.workspace,
      config: o.config,
      env: o.env ?? process.env,
      filter: o.config.tasks.github ?? {},
    });
  const kind = taskSourceOf(o.workspace, o.config);
  const existing = readParallelState(paths.state);
  const mode = o.mode ?? 'auto';
  if (mode === 'resume' && (!existing || existing.status === 'completed'))
    throw new RalphError(
      'nothing_to_resume',
      'there is no unfinished parallel run to resume here; run without --resume',
    );
  const resumed = existing !== undefined && existing.status !== 'completed' && mode !== 'fresh';
  if (resumed && existing.target !== rs.branch)
    throw new RalphError(
      'wrong_branch',
      `the unfinished parallel run merges into ${existing.target}, but ${rs.branch} is checked out: check out ${existing.target}, or pass --fresh`,
    );
  const at = new Date(now()).toISOString();
  const state: OpenedRun['state'] = resumed
    ? { ...existing, workers: o.workers, status: 'running' }
    : {
        version: 1,
        id: `par-${at.replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomBytes(2).toString('hex')}`,
        target: rs.branch as string,
        workers: o.workers,
        source: kind,
        started_at: at,
        updated_at: at,
        runtime_ms: 0,
        tasks: {},
        queue: [],
        status: 'running',
        // A stop sent to an earlier loop here is not meant for this run.
        control: { offset: inboxSize(o.workspace), consumed: [] },
      };
  delete state.stop_reason;
  if (!resumed && readyFromSource(o.workspace, o.config, kind).length === 0)
    throw new RalphError('parallel_no_tasks', `no ready task for the workers: ${NO_TASKS[kind]}`);
  return { state, repo, kind, sourceFile: sourceFile(kind, o.config), resumed };
}

/** `ralph stop [--now]` sent to this workspace, each command taken once. */
export function readStopCommands(workspace: string, state: OpenedRun['state']): ParallelStop[] {
  state.control ??= { offset: 0, consumed: [] };
  const control = state.control;
  const read = readInbox(ralphPaths(workspace).inbox, control.offset);
  control.offset = read.nextOffset;
  const out: ParallelStop[] = [];
  for (const c of read.commands) {
    if (control.consumed.includes(c.id) || (c.kind !== 'stop' && c.kind !== 'stop_now')) continue;
    control.consumed.push(c.id);
    out.push({
      reason: 'cancelled',
      exitCode: 0,
      now: c.kind === 'stop_now',
      message:
        c.kind === 'stop_now'
          ? 'stopped by `ralph stop --now`'
          : 'stopped by `ralph stop`: the workers finished their iteration',
    });
  }
  return out;
}

function inboxSize(workspace: string): number {
  try {
    return statSync(ralphPaths(workspace).inbox).size;
  } catch {
    return 0;
  }
}

/**
 * Every worker's checkout needs `.ralph/.gitignore` (or its agent commits Ralph's runtime files),
 * and a worker committing it would block the fast-forward of the target where it is untracked: it
 * is committed on the target first, alone.
 */
async function commitRuntimeIgnore(workspace: string): Promise<void> {
  const paths = ralphPaths(workspace);
  ensureRuntimeIgnored(paths);
  const file = relative(workspace, paths.gitignore);
  const status = await runGit(workspace, ['status', '--porcelain', '--', file]);
  if (status.trim() === '') return;
  await runGit(workspace, ['add', '--', file]);
  await runGit(workspace, ['commit', '-q', '-m', "ralph: keep Ralph's runtime files out of git", '--', file]);
}
