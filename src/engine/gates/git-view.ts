import { dirname, join } from 'node:path';
import { RalphError } from '../../errors.ts';
import type { WorkTreeLayout } from '../../git/work-tree-layout.ts';
import {
  clearIndexFlags,
  currentIndexFlags,
  flaggedPaths,
  flagsGained,
  type IndexFlags,
} from '../../git/workspace-guard/index-flags.ts';
import { writeFileAtomicSync } from '../../state/io/atomic-write.ts';
import { readOptional } from '../../state/io/read-optional.ts';
import { statKey } from '../../state/io/stat-cache.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RalphPaths } from '../../state/paths.ts';
import { listFiles } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import { type ControlMark, holdControlFiles, markControlFiles } from './git-control-files.ts';

/** How the tampered list names the exclude file (it lives in the common git dir of a worktree). */
export const INFO_EXCLUDE = '.git/info/exclude';

/**
 * `.ralph/runs/<run>/git-view-start.json`: the index flags and the git control files' sha256
 * (git-control-files.ts; null: absent) as the run started, so a `--resume` compares with the same start. Read only by a
 * process that did not write it (as rules-start.json): a running loop keeps its own in memory.
 */
interface GitViewStart {
  flags: IndexFlags;
  control: ControlMark;
}

interface Watched {
  layout: WorkTreeLayout;
  start: GitViewStart;
  /** statKey of the index when Ralph last read its flags (undefined: never, so they are read). */
  indexKey: string | undefined;
}

const watched = new WeakMap<RunContext, Watched>();

const FILE = 'git-view-start.json';
const fileOf = (ctx: RunContext) => join(ctx.paths.runs, ctx.state.run_id, FILE);
const indexOf = (layout: WorkTreeLayout) => join(layout.gitDir, 'index');

function readSaved(ctx: RunContext): GitViewStart | undefined {
  return readStart(fileOf(ctx));
}

function readStart(file: string): GitViewStart | undefined {
  try {
    const v = JSON.parse(readOptional(file, 'absent') ?? 'null') as GitViewStart | null;
    const list = (x: unknown) => Array.isArray(x) && x.every((p) => typeof p === 'string');
    if (!v || !list(v.flags?.skipWorktree) || !list(v.flags?.assumeUnchanged)) return undefined;
    // A start saved before the control files were watched: they are taken as they are now.
    if (typeof v.control !== 'object' || v.control === null) return undefined;
    return v;
  } catch {
    return undefined;
  }
}

/**
 * At the start of a run in a git work tree (not `repos`): the index flags and the git control files (git-control-files.ts)
 * Ralph's commits, rollbacks and progress count on. A new run takes them now and saves them; a
 * resumed one reads what its first session saved (a missing file: taken now, with a warning).
 */
export async function gitViewAtStart(ctx: RunContext, layout: WorkTreeLayout | undefined): Promise<void> {
  if (!layout || ctx.config.repos) return;
  const saved = readSaved(ctx);
  const resumed = ctx.state.iterations > 0 || ctx.state.current != null;
  if (saved) {
    // What the killed try hid is cleared after its re-run's agent, and that record names it.
    watched.set(ctx, { layout, start: saved, indexKey: undefined });
    return;
  }
  const start = {
    flags: await currentIndexFlags(layout),
    control: markControlFiles(layout, ctx.paths.protectedStore),
  };
  watched.set(ctx, { layout, start, indexKey: statKey(indexOf(layout)) });
  // No fsync: after a power loss the file is missing, and the resumed run starts from what it sees.
  writeFileAtomicSync(fileOf(ctx), JSON.stringify(start), { fsync: false });
  if (resumed)
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `.ralph/runs/${ctx.state.run_id}/${FILE} is missing: the index flags and git's control files (${INFO_EXCLUDE}, info/attributes, commondir…) as they are now count as the run's start`,
    });
}

/**
 * Before a run continues an earlier one (before its first git call that could run a program): a
 * control file changed since that run started (an agent killed mid-iteration) is put back, and
 * the run stops — the layout it read may be the agent's. `ralph run --resume` again goes on.
 */
export function refuseChangedControlFiles(
  paths: RalphPaths,
  previous: LoopState | undefined,
  layout: WorkTreeLayout,
): void {
  if (!previous || previous.status === 'completed') return;
  const dir = join(paths.runs, previous.run_id);
  const saved = readStart(join(dir, FILE));
  if (!saved) return;
  const keep = join(dir, 'git-control-refused-resume');
  const changed = holdControlFiles(layout, saved.control, paths.protectedStore, keep);
  if (changed.length === 0) return;
  throw new RalphError(
    'git_state',
    `${changed.join(', ')} changed since run ${previous.run_id} started (an agent killed mid-iteration, or you): put back as the run started, the versions found kept in ${keep}; \`ralph run --resume\` again to go on (a change of yours belongs between runs: \`ralph run --fresh\`)`,
  );
}

/**
 * After the agent's turn, before Ralph reads the tree: the skip-worktree and assume-unchanged bits
 * set since the run started are cleared, so git shows those files' edits to Ralph's commit,
 * rollback and progress. Read only when the index file changed since Ralph last read it (its own
 * commits change it too: one read of the file, no git process unless it holds a flag). Returns the
 * paths (from the repository's top), named in a notice.
 */
export async function clearHiddenIndexFlags(ctx: RunContext, who: string): Promise<string[]> {
  const w = watched.get(ctx);
  if (!w) return [];
  const index = indexOf(w.layout);
  if (w.indexKey !== undefined && statKey(index) === w.indexKey) return [];
  const gained = flagsGained(w.start.flags, await currentIndexFlags(w.layout));
  const paths = flaggedPaths(gained);
  if (paths.length > 0) {
    await clearIndexFlags(w.layout.top, gained);
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `${who} hid ${paths.length} file(s) from git with skip-worktree or assume-unchanged (${listFiles(paths)}): cleared, so Ralph sees their changes`,
    });
  }
  w.indexKey = statKey(index);
  return paths;
}

/**
 * The git control files the agent changed since the run started (names, `.git/info/attributes`…),
 * each already put back — its version kept beside the records — so no git call of Ralph's after
 * the agent's turn reads another repository or runs a filter the agent chose. Run before any.
 */
export function controlFilesTampered(ctx: RunContext, iteration: number): string[] {
  const w = watched.get(ctx);
  if (!w) return [];
  const keep = join(dirname(ctx.recordsFile), `git-control-refused-${iteration}`);
  return holdControlFiles(w.layout, w.start.control, ctx.paths.protectedStore, keep);
}
