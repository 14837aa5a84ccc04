import { join } from 'node:path';
import { holdGitConfig, keepConfigCopies } from '../engine/gates/git-config-gate.ts';
import type { ForgeSession } from '../forge/open-forge.ts';
import { readWorkTreeLayout } from '../git/work-tree-layout.ts';
import { type ConfigMark, configFiles, readConfigMark } from '../git/workspace-guard/program-config.ts';
import type { ParallelTask } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import type { Coordination } from './coordination.ts';
import { MergeInterrupted, mergeTask } from './merge-queue.ts';
import type { ParallelStop } from './parallel-decide.ts';
import { type LandingDeps, landThroughPullRequest } from './pull-request-land.ts';
import { markDone, markFailed } from './task-source.ts';
import { account, adopt, liveWorkerOf, release, startWorker, taskWorkspace } from './worker-runs.ts';
import { removeIfMerged } from './worktrees.ts';

/** Merges the task first in the queue (DESIGN.md §5); its outcome moves the task on. */
export async function mergeNext(c: Coordination, id: string): Promise<void> {
  const { state } = c;
  const task = state.tasks[id];
  if (!task) {
    state.queue = state.queue.filter((q) => q !== id);
    return;
  }
  // Before any git call of the merge: a program an agent added to the shared git config is put
  // back (the merge then runs without it) and the run stops once the workers finish.
  const refused = await configBeforeMerge(c);
  if (refused) c.stopping ??= refused;
  task.state = 'merging';
  c.persist();
  c.emit({ type: 'merge.started', task: id, title: task.title });
  const dir = taskWorkspace(c.setup, task);
  // A resolving worker a crashed coordinator left running finishes before the merge goes on.
  const leftover = liveWorkerOf(c.setup, task);
  if (leftover) await adopt(c.setup, task, leftover).handle.exited;
  const outcome = await mergeTask(task, dir, {
    root: c.o.workspace,
    target: state.target,
    config: c.o.config,
    env: c.setup.env,
    maxAttempts: c.o.config.merge.max_attempts,
    persist: c.persist,
    emit: c.emit,
    signal: c.o.signal,
    resolve: (t, conflict) => resolveConflict(c, t, conflict),
    land: c.forge && ((t, d) => landThroughPullRequest(t, d, landingDeps(c, c.forge as ForgeSession))),
  });
  state.queue = state.queue.filter((q) => q !== id);
  if (outcome.kind === 'merged') {
    task.merged_commit = outcome.commit;
    // The source shows the task done before its commit is made: nothing starts from it until the
    // merge is recorded and announced (a next milestone's task is taken after its `merged` line).
    c.markingDone = true;
    try {
      const doneCommit = await markDone(c.o.workspace, c.o.config, c.kind, task, outcome.commit);
      task.state = 'merged';
      c.persist();
      c.emit({ type: 'merge.merged', task: id, title: task.title, commit: outcome.commit, doneCommit });
    } finally {
      c.markingDone = false;
    }
    // Its commits are on the target now: the checkout and branch go (never before, never otherwise).
    await removeIfMerged(c.setup.repo, task.worktree, state.target).catch(() => false);
  } else if (outcome.kind === 'rework') {
    task.state = 'ready';
    task.feedback = outcome.feedback;
  } else if (outcome.kind === 'failed') {
    task.state = 'failed';
    task.reason = outcome.reason;
    markFailed(c.o.workspace, c.kind, id, outcome.reason);
  } else {
    task.state = 'needs_review';
    task.reason = outcome.reason;
  }
  c.persist();
  c.emit({ type: 'task.state', task: id, title: task.title, state: task.state, reason: task.reason });
}

/**
 * A merge that threw: interrupted, it stays `merging` for --resume; otherwise a person looks at it
 * (the worktree and branch are kept as they are).
 */
export function mergeFailed(c: Coordination, id: string, error: unknown): void {
  const task = c.state.tasks[id];
  if (!task || error instanceof MergeInterrupted || c.o.signal?.aborted) return;
  c.state.queue = c.state.queue.filter((q) => q !== id);
  task.state = 'needs_review';
  task.reason = `the merge failed: ${(error as Error).message ?? String(error)}`;
  c.persist();
  c.emit({ type: 'task.state', task: id, title: task.title, state: task.state, reason: task.reason });
}

function landingDeps(c: Coordination, forge: ForgeSession): LandingDeps {
  return {
    forge,
    root: c.o.workspace,
    target: c.state.target,
    config: c.o.config,
    env: c.setup.env,
    runId: c.state.id,
    inbox: ralphPaths(c.o.workspace).inbox,
    persist: c.persist,
    emit: c.emit,
    halted: c.halted,
  };
}

/** One agent iteration in the task's worktree that merges the target and resolves the conflict. */
async function resolveConflict(c: Coordination, t: ParallelTask, conflict: string): Promise<void> {
  const a = await startWorker(c.setup, {
    worker: 'merge',
    task: t,
    assignment: { kind: 'resolve', title: t.title, conflict },
    workers: c.state.workers,
    target: c.state.target,
    left: c.left(),
  });
  if (!a) return;
  c.watch(a);
  c.emit({
    type: 'worker.started',
    worker: 'merge',
    task: t.id,
    title: t.title,
    kind: 'resolve',
    pid: a.handle.pid,
    worktree: t.worktree,
    adopted: false,
  });
  await a.handle.exited;
  c.active.delete('merge');
  c.ended.delete(a);
  release(c.setup, t);
  account(t, a.dir);
  c.persist();
}

/**
 * The repository's program-running git config (src/git/workspace-guard/program-config.ts) as a parallel run starts:
 * every worktree shares it (the common dir's config), so any worker's agent can change it.
 */
export async function parallelConfigMark(root: string): Promise<ConfigMark | undefined> {
  const layout = await readWorkTreeLayout(root);
  if (!layout) return undefined;
  const mark = await readConfigMark(root, configFiles(layout));
  keepConfigCopies(ralphPaths(root).protectedStore, mark);
  return mark;
}

/**
 * Before the merge queue's git calls (rebase, merge, reset, fast-forward): a program a worker's
 * agent added to the shared config since the start is put back first; the stop it returns
 * (`gate_tampered`, the key named) ends the run once the workers finish. Undefined: nothing changed.
 */
export async function configBeforeMerge(c: Coordination): Promise<ParallelStop | undefined> {
  const mark = c.gitConfig;
  if (!mark) return undefined;
  const keep = join(c.setup.paths.dir, `git-config-refused-${Date.now()}`);
  const changed = await holdGitConfig(c.o.workspace, mark, ralphPaths(c.o.workspace).protectedStore, keep);
  if (changed.length === 0) return undefined;
  return {
    reason: 'gate_tampered',
    message: `a worker's agent changed the repository's git config: ${changed.join(', ')} (a program git would run in the merges, or where they push); it was put back before any merge ran it (the version found is in ${keep}) — review the workers' instructions, then \`ralph run --parallel … --resume\``,
    exitCode: 1,
  };
}
