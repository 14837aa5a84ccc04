import type { RepoRecord } from '../../state/iteration-record-shape.ts';
import type { PendingRollback } from '../../state/loop-state.ts';

/** What the next prompt says about a multi-repository rollback: why, and where each part is kept. */
export function reposRollbackFeedback(r: PendingRollback, records: RepoRecord[], reasons: string[]): string {
  const kept = records.map(
    (x) => `- ${x.name} (${x.path}): ${r.ref} — back at ${x.rollback?.to.slice(0, 12)}`,
  );
  const why = r.trees[0]?.why ?? '';
  return [
    `Iteration ${r.iteration} was rolled back in every repository it changed, because ${why.split('\n')[0]}. The changes are kept as rescue refs:\n${kept.join('\n')}\nMake the change again in a way that passes, or take another approach.`,
    ...reasons,
  ].join('\n\n');
}
