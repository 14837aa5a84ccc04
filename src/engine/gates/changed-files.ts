import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import { isAncestor } from '../../git/branches.ts';
import { readGitHead } from '../../git/head.ts';
import { showPrefix } from '../../git/working-tree.ts';
import { setCurrent } from '../../state/loop-state/in-flight.ts';
import { RALPH_DIR } from '../../state/paths.ts';
import { filesChanged } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import type { ChangedFiles } from './checks/affected-tests.ts';
import { filesDiff, workspaceFiles } from './work-progress.ts';

/** Where an iteration started: its HEAD, and outside git the workspace's files (workspaceFiles). */
export interface IterationStart {
  headBefore: string | null;
  /** Outside git, with `gates.tests.affected`: the files when the iteration started (null: too many). */
  filesBefore?: ReadonlyMap<string, string> | null | undefined;
}

/**
 * A re-run after a crash starts where its interrupted try did (`current.head_before`: a commit that
 * try landed is its candidate) only while that commit is still in HEAD's history. After a reset that
 * dropped it, the saved start is forgotten: there is no landed candidate, the re-run starts at HEAD,
 * and a notice says so.
 */
export async function forgetUnreachableStart(ctx: RunContext, number: number): Promise<void> {
  const { state } = ctx;
  const current = state.current;
  const saved = current?.number === number ? current.head_before : undefined;
  if (!current || typeof saved !== 'string') return;
  const ws = ctx.options.workspace;
  const head = readGitHead(ws).commit ?? null;
  if (head === saved || (head !== null && (await isAncestor(ws, saved, head)))) return;
  const { head_before: _dropped, ...rest } = current;
  setCurrent(state, rest);
  ctx.emit({
    type: 'notice',
    level: 'warn',
    message: `iteration ${number}: its interrupted try started at ${saved.slice(0, 12)}, which is no longer in HEAD's history (reset since?): no landed candidate; the re-run starts at ${head?.slice(0, 12) ?? 'HEAD'}`,
  });
}

/** The files as an iteration starts, for its affected tests: only needed outside git. */
export function filesAtStart(ctx: RunContext): Map<string, string> | null | undefined {
  if (ctx.inRepo || ctx.config.gates.tests?.affected === undefined) return undefined;
  return workspaceFiles(ctx.options.workspace);
}

/**
 * What the iteration changed, workspace-relative: in git, the files changed since its start commit
 * (committed or not, untracked included, `.ralph/` left out); outside git, the
 * difference from the walk at its start. Null when that cannot be told.
 */
export async function iterationChanges(ctx: RunContext, start: IterationStart): Promise<ChangedFiles | null> {
  const ws = ctx.options.workspace;
  if (!ctx.inRepo) {
    const after = start.filesBefore ? workspaceFiles(ws) : null;
    if (!start.filesBefore || !after) return null;
    const { changed, deleted } = filesDiff(start.filesBefore, after);
    return { files: changed, deleted };
  }
  const [fromTop, prefix] = await Promise.all([
    filesChanged(ws, start.headBefore, readGitHead(ws).commit ?? null, ctx.pendingChanges),
    showPrefix(ws),
  ]);
  // git names paths from the repository's top level; the command runs in the workspace.
  const top = prefix.trim().replace(/\/$/, '');
  // Ralph's own directory is never the project's code (outside git the walk skips it too).
  const paths = fromTop
    .map((p) => (top === '' ? p : posix.relative(top, p)))
    .filter((p) => !p.startsWith(`${RALPH_DIR}/`));
  return {
    files: paths.filter((p) => existsSync(join(ws, p))),
    deleted: paths.filter((p) => !existsSync(join(ws, p))),
  };
}
