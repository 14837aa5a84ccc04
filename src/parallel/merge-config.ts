import { join } from 'node:path';
import { holdGitConfig, keepConfigCopies } from '../engine/verify/git-config-gate.ts';
import { type ConfigMark, configFiles, readConfigMark } from '../git/program-config.ts';
import { readWorkTreeLayout } from '../git/work-tree-layout.ts';
import { ralphPaths } from '../state/paths.ts';
import type { Coordination } from './coordination.ts';
import type { ParallelStop } from './parallel-decide.ts';

/**
 * The repository's program-running git config (src/git/program-config.ts) as a parallel run starts:
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
