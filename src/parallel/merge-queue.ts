import type { RalphConfig } from '../config/schema.ts';
import { type GateResult, runGate, validateCommand } from '../engine/gates/checks/run-gate.ts';
import { isAncestor } from '../git/branches.ts';
import { repoState } from '../git/repo-state.ts';
import { runGit, runGitRaw } from '../git/run-git.ts';
import type { ParallelEvent } from '../observe/parallel-events.ts';
import type { ParallelTask } from '../state/parallel-files.ts';
import { conflictedFiles, describeConflict, filesWithMarkers } from './conflicts.ts';
import { worktreeBranch } from './worktrees.ts';

/** What the merge of one finished task came to. */
export type MergeOutcome =
  | { kind: 'merged'; commit: string }
  /** Back to a worker: the gates failed on the rebased tree, or there was nothing to merge. */
  | { kind: 'rework'; feedback: string; gate: { passed: false; summary: string } | null }
  | { kind: 'needs_review'; reason: string }
  /** `merge.via: pull_request`: its pull request was closed unmerged. */
  | { kind: 'failed'; reason: string };

export interface MergeDeps {
  root: string;
  target: string;
  config: RalphConfig;
  env: NodeJS.ProcessEnv;
  maxAttempts: number;
  /** One agent iteration in the worktree that merges the target and resolves the conflict. */
  resolve(task: ParallelTask, conflict: string): Promise<void>;
  /** Saves the task's counters (a crash mid-merge resumes with them). */
  persist(): void;
  emit(event: ParallelEvent): void;
  signal?: AbortSignal | undefined;
  /**
   * `merge.via: pull_request`: lands the rebased branch that passed the gates through a pull
   * request instead of a fast-forward; null when the run stops first (the task stays queued).
   */
  land?: ((task: ParallelTask, dir: string) => Promise<MergeOutcome | null>) | undefined;
}

/** Ctrl-C during a merge: the task stays `merging` and `--resume` finishes it. */
export class MergeInterrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

async function rev(dir: string, ref: string): Promise<string> {
  return (await runGit(dir, ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
}

/** Undoes what a crash left half-done in the worktree (a rebase or merge stopped midway). */
async function settleWorktree(dir: string): Promise<void> {
  const op = (await repoState(dir)).operation;
  if (op === 'rebase') await runGitRaw(dir, ['rebase', '--abort']);
  else if (op === 'merge') await runGitRaw(dir, ['merge', '--abort']);
}

/** Brings the branch up to date with the target; the conflicted files when that fails. */
async function catchUp(dir: string, task: ParallelTask, target: string): Promise<string[]> {
  const targetHead = await rev(dir, target);
  if (await isAncestor(dir, targetHead, 'HEAD')) return [];
  // After a resolving merge, a rebase would replay the branch's commits and hit the same conflict.
  const args = task.resolved_by_merge ? ['merge', '--no-edit', targetHead] : ['rebase', targetHead];
  const r = await runGitRaw(dir, args);
  if (r.exitCode === 0) return [];
  await settleWorktree(dir);
  const files = await conflictedFiles(dir, targetHead, 'HEAD');
  return files.length > 0 ? files : ['(git could not say which files)'];
}

async function runGates(dir: string, task: ParallelTask, deps: MergeDeps): Promise<GateResult[]> {
  const results: GateResult[] = [];
  // A gate can tell the merge queue's run from a worker iteration's.
  const env = { ...deps.env, RALPH_MERGE_TASK: task.id };
  const grace = deps.config.event_loop.kill_grace_seconds * 1000;
  const validate = validateCommand(deps.config, dir);
  if (validate)
    results.push(
      await runGate({
        gate: 'validate',
        command: validate,
        workspace: dir,
        env,
        timeoutMs: deps.config.gates.validate_timeout_seconds * 1000,
        killGraceMs: grace,
        signal: deps.signal,
      }),
    );
  const tests = deps.config.gates.tests;
  if (tests && results.every((g) => g.passed))
    results.push(
      await runGate({
        gate: 'tests',
        command: tests.command,
        workspace: dir,
        env,
        timeoutMs: tests.timeout_seconds * 1000,
        killGraceMs: grace,
        signal: deps.signal,
      }),
    );
  return results;
}

/** Moves the target to `head`, which contains it: in the checkout that has the target, or by ref. */
export async function fastForward(root: string, target: string, head: string): Promise<string | null> {
  const rootState = await repoState(root);
  const r =
    rootState.branch === target
      ? await runGitRaw(root, ['merge', '--ff-only', '-q', head])
      : await runGitRaw(root, ['update-ref', `refs/heads/${target}`, head, await rev(root, target)]);
  return r.exitCode === 0 ? null : r.stderr.trim() || `git exited ${r.exitCode}`;
}

/**
 * Merges one finished task: rebase onto the target (a conflict gets one resolving agent iteration
 * per attempt), the gates on the rebased tree, then a fast-forward of the target. The task is
 * merged only when its commit is on the target. Safe to run again after a crash at any point: a
 * step already done is seen as done (the branch contains the target; the target contains the head).
 */
export async function mergeTask(task: ParallelTask, dir: string, deps: MergeDeps): Promise<MergeOutcome> {
  const branch = worktreeBranch(task.worktree);
  const { target } = deps;
  await settleWorktree(dir);
  for (;;) {
    if (deps.signal?.aborted) throw new MergeInterrupted();
    // A pull request already open for the task (a resumed run): back to waiting for its merge.
    if (deps.land && task.pr?.status === 'open') return landed(await deps.land(task, dir));
    const head = await rev(dir, 'HEAD');
    if (await isAncestor(deps.root, head, target)) return { kind: 'merged', commit: head };
    const ahead = Number((await runGit(dir, ['rev-list', '--count', `${target}..HEAD`])).trim());
    if (ahead === 0)
      return {
        kind: 'rework',
        feedback: `The task was reported done, but branch ${branch} has no commit that ${target} lacks: do the work and commit it.`,
        gate: null,
      };
    const conflicts = await catchUp(dir, task, target);
    if (conflicts.length > 0) {
      task.merge_attempts++;
      deps.persist();
      deps.emit({ type: 'merge.conflict', task: task.id, files: conflicts, attempt: task.merge_attempts });
      if (task.merge_attempts > deps.maxAttempts)
        return {
          kind: 'needs_review',
          reason: `merging into ${target} conflicts in ${conflicts.join(', ')} after ${deps.maxAttempts} attempt(s)`,
        };
      const before = await rev(dir, 'HEAD');
      const targetHead = await rev(dir, target);
      await deps.resolve(task, await describeConflict(dir, targetHead, before, conflicts));
      await settleWorktree(dir);
      const merged = await isAncestor(dir, targetHead, 'HEAD');
      const left = merged ? await filesWithMarkers(dir, conflicts) : [];
      if (merged && left.length === 0) {
        task.resolved_by_merge = true;
        deps.persist();
      } else {
        // A failed resolution is undone; the task's own commits (all before `before`) stay.
        await runGit(dir, ['reset', '-q', '--hard', before]);
      }
      continue;
    }
    const rebased = await rev(dir, 'HEAD');
    deps.emit({ type: 'merge.gates', task: task.id, phase: 'started' });
    const gates = await runGates(dir, task, deps);
    // A gate killed by Ctrl-C says nothing about the tree: the merge stays where it is, for --resume.
    if (deps.signal?.aborted) throw new MergeInterrupted();
    const failed = gates.find((g) => !g.passed);
    if (failed) {
      task.merge_attempts++;
      const summary = `${failed.gate} failed on the rebased tree (exit ${failed.exitCode ?? 'timeout'})`;
      task.last_gate = { passed: false, summary };
      deps.persist();
      deps.emit({ type: 'merge.gates', task: task.id, phase: 'failed', summary });
      if (task.merge_attempts > deps.maxAttempts)
        return { kind: 'needs_review', reason: `${summary}, ${deps.maxAttempts} attempt(s) used` };
      return {
        kind: 'rework',
        feedback: `Your branch was rebased onto ${target} and \`${failed.command}\` failed there (exit ${failed.exitCode ?? 'timeout'}). Make it pass, then commit. Its output ended with:\n\n\`\`\`\n${failed.output.slice(-3000)}\n\`\`\``,
        gate: { passed: false, summary },
      };
    }
    task.last_gate = {
      passed: true,
      summary: gates.length ? gates.map((g) => `${g.gate} passed`).join(', ') : 'no gates',
    };
    deps.persist();
    deps.emit({ type: 'merge.gates', task: task.id, phase: 'passed', summary: task.last_gate.summary });
    if (deps.land) return landed(await deps.land(task, dir));
    const refused = await fastForward(deps.root, target, rebased);
    if (refused === null) continue; // the next round sees the head on the target
    // The target moved meanwhile: catch up again. Anything else (the user's checkout refused) is for a person.
    if (!(await isAncestor(deps.root, target, rebased))) continue;
    return { kind: 'needs_review', reason: `could not fast-forward ${target} in ${deps.root}: ${refused}` };
  }
}

function landed(outcome: MergeOutcome | null): MergeOutcome {
  if (outcome === null) throw new MergeInterrupted();
  return outcome;
}
