import { rescueRef } from '../../git/rescue-refs.ts';
import type { RepoRecord } from '../../state/iteration-record-shape.ts';
import type { ReposRollback } from '../../state/loop-state.ts';
import type { RunContext } from '../context/run-context.ts';
import { type RepoEntry, repoEntries } from '../readiness/repo-set.ts';
import { rollBackTree } from '../verify/rollback.ts';

/**
 * The rollback of an iteration in every repository it changed (pure): each returns to where the
 * iteration started there. A repository with no commit yet is left alone (preflight refuses one).
 */
export function planReposRollback(
  runId: string,
  iteration: number,
  why: string,
  changed: { repo: RepoEntry; before: string | null }[],
): ReposRollback {
  return {
    iteration,
    ref: rescueRef(runId, iteration),
    why,
    repos: changed.flatMap(({ repo, before }) => (before === null ? [] : [{ name: repo.name, to: before }])),
    done: [],
  };
}

/**
 * Sets the pending multi-repository rollback's changes aside, one repository after the other, by the
 * workspace's own steps (rollBackTree: rescue ref, reset), then its name in `done`, saved.
 * A kill at any point leaves each repository's part in its tree, its ref, or both, and --resume
 * (which calls this first) finishes the repositories not yet done.
 */
export async function finishReposRollback(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  const r = state.repos_rollback;
  if (!r) return;
  const entries = new Map(repoEntries(ctx.options.workspace, ctx.config).map((e) => [e.name, e]));
  for (const { name, to } of r.repos) {
    if (r.done.includes(name)) continue;
    const repo = entries.get(name);
    // A repository no longer in ralph.yml: its part stays where it is (the tree, or the ref).
    if (repo) {
      // Its journal is `done`, saved after the reset; the rescue ref itself says it was saved.
      await rollBackTree({ ...r, root: repo.root, repo: name, to, runId: state.run_id });
      ctx.emit({
        type: 'notice',
        level: 'warn',
        message: `repository ${name}: iteration ${r.iteration} rolled back to ${to.slice(0, 12)}; its changes are kept in ${r.ref} (git -C ${repo.path} show ${r.ref})`,
      });
    }
    r.done.push(name);
    state.repos_rollback = { ...r, done: [...r.done] };
    ctx.persist();
  }
  state.repos_rollback = null;
  ctx.persist();
}

/** What the next prompt says about a multi-repository rollback: why, and where each part is kept. */
export function reposRollbackFeedback(r: ReposRollback, records: RepoRecord[], reasons: string[]): string {
  const kept = records.map(
    (x) => `- ${x.name} (${x.path}): ${r.ref} — back at ${x.rollback?.to.slice(0, 12)}`,
  );
  return [
    `Iteration ${r.iteration} was rolled back in every repository it changed, because ${r.why.split('\n')[0]}. The changes are kept as rescue refs:\n${kept.join('\n')}\nMake the change again in a way that passes, or take another approach.`,
    ...reasons,
  ].join('\n\n');
}

/** A rollback across the repositories to finish (saved with the iteration's record), or null: none. */
export function saveReposRollback(state: RunContext['state'], r: ReposRollback | null): void {
  state.repos_rollback = r;
}
