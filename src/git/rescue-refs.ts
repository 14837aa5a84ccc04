import { join, relative } from 'node:path';
import { RalphError } from '../errors.ts';
import { removeFile } from '../state/io/file-writes.ts';
import { moveAside } from '../state/io/move-aside.ts';
import { resolveCommit } from './branches.ts';
import { stageAll } from './commit.ts';
import { readableDiff } from './readable-diff.ts';
import { repoState } from './repo-state.ts';
import { gitFailure, runGit, runGitRaw } from './run-git.ts';
import { type ExcludeOptions, workingTreeChanges } from './working-tree.ts';

/** Where rolled-back changes are kept: one ref per run and iteration (DESIGN §6). */
export const RESCUE_PREFIX = 'refs/ralph/rescue';

/** `refs/ralph/rescue/<run>/<iteration>`. */
export function rescueRef(runId: string, iteration: number): string {
  return `${RESCUE_PREFIX}/${runId}/${iteration}`;
}

/** One rescued change as `ralph rescue list` shows it. */
export interface RescueEntry {
  ref: string;
  run: string;
  iteration: number;
  commit: string;
  /** The last green commit the work tree went back to (the rescue commit's first parent). */
  base: string;
  /** The rescue commit also has HEAD of the moment as a parent (the agent had committed). */
  merge: boolean;
  date: string;
  subject: string;
}

/**
 * Commits the whole work tree and index (untracked files included, ignored and excluded ones not)
 * to `ref` without moving HEAD or any branch. The commit's first parent is `base` (the commit the
 * tree goes back to), so its diff is everything that is set aside; HEAD, when it moved past `base`,
 * is the second parent, which keeps the agent's own commits reachable. Refuses to overwrite a ref.
 */
export async function saveRescue(
  root: string,
  o: { ref: string; base: string; message: string } & ExcludeOptions,
): Promise<string> {
  await stageAll(root, { exclude: o.exclude });
  const tree = (await runGit(root, ['write-tree'])).trim();
  const head = await resolveCommit(root, 'HEAD');
  const parents = head && head !== o.base ? [o.base, head] : [o.base];
  const commit = (
    await runGit(root, ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-F', '-'], {
      input: o.message,
    })
  ).trim();
  // The empty old value: created only when absent, so an earlier rescue is never replaced.
  await runGit(root, ['update-ref', '-m', 'ralph rescue', o.ref, commit, '']);
  return commit;
}

/**
 * Puts the work tree back at `commit`: tracked files reset, untracked files (not ignored, not
 * excluded) removed. Only called once what is removed is kept in a rescue ref.
 */
export async function resetTo(root: string, commit: string, { exclude }: ExcludeOptions): Promise<void> {
  await runGit(root, ['reset', '-q', '--hard', commit]);
  const top = (await runGit(root, ['rev-parse', '--show-toplevel'])).trim();
  const left = await workingTreeChanges(root, { exclude });
  for (const change of left) if (change.status === '??') removeFile(join(top, change.path));
}

/**
 * Moves each untracked directory git reports as a unit (a nested repository: git can neither stage
 * its files nor, when it has no commit, stage it at all) whole into `dest`, under its own path, so a
 * rescue and a reset go through without losing it. Returns `path -> where`, relative to `root`.
 */
export async function moveAsideUnits(
  root: string,
  dest: string,
  { exclude }: ExcludeOptions,
): Promise<string[]> {
  const top = (await runGit(root, ['rev-parse', '--show-toplevel'])).trim();
  return (await untrackedUnits(root, { exclude })).map((path) => {
    const where = moveAside(join(top, path), join(dest, path));
    return `${path} -> ${relative(root, where)}`;
  });
}

/** Untracked directories git reports whole (nested repositories), from the top level, no trailing slash. */
export async function untrackedUnits(root: string, { exclude }: ExcludeOptions): Promise<string[]> {
  const changes = await workingTreeChanges(root, { exclude });
  return changes.filter((c) => c.status === '??' && c.path.endsWith('/')).map((c) => c.path.slice(0, -1));
}

/** The rescued changes under `refs/ralph/rescue/`, newest first. */
export async function listRescues(root: string): Promise<RescueEntry[]> {
  const format = '%(refname)%00%(objectname)%00%(parent)%00%(creatordate:iso-strict)%00%(subject)';
  const out = await runGit(root, [
    'for-each-ref',
    '--sort=-creatordate',
    `--format=${format}`,
    RESCUE_PREFIX,
  ]);
  return out
    .split('\n')
    .filter((l) => l.length > 0)
    .map((line) => {
      const [ref = '', commit = '', parents = '', date = '', subject = ''] = line.split('\0');
      const [run = '', iteration = '0'] = ref.slice(RESCUE_PREFIX.length + 1).split('/');
      const [base = '', ...more] = parents.split(' ');
      return { ref, run, iteration: Number(iteration), commit, base, merge: more.length > 0, date, subject };
    });
}

/** The commit's full message and its changes against the commit it was rolled back to. */
export async function showRescue(root: string, entry: RescueEntry): Promise<string> {
  const message = await runGit(root, ['log', '-1', '--format=commit %H%nDate:   %cI%n%n%B', entry.commit]);
  const stat = await readableDiff(root, ['--stat', '--patch', entry.base, entry.commit]);
  return `${message.trimEnd()}\n\n${stat}`;
}

/**
 * Applies a rescued change onto the current work tree (staged, not committed): the difference
 * between the commit it was rolled back to and the rescued tree. Refuses on uncommitted changes.
 */
export async function applyRescue(
  root: string,
  entry: RescueEntry,
  { exclude }: ExcludeOptions,
): Promise<void> {
  const state = await repoState(root);
  if (state.operation)
    throw new RalphError(
      'git_state',
      `a ${state.operation} is in progress: finish or abort it, then apply again`,
    );
  const dirty = await workingTreeChanges(root, { exclude });
  if (dirty.length > 0)
    throw new RalphError(
      'dirty_tree',
      `the work tree has uncommitted changes (${dirty
        .slice(0, 5)
        .map((c) => c.path)
        .join(', ')}): commit them (or \`git stash\`) first, then run \`ralph rescue apply\` again`,
    );
  // With HEAD as a second parent, the change is the diff against the first (the green commit).
  const args = ['cherry-pick', '--no-commit', ...(entry.merge ? ['-m', '1'] : []), entry.commit];
  const r = await runGitRaw(root, args);
  if (r.exitCode !== 0)
    throw gitFailure(
      root,
      args,
      r,
      'the rescued change conflicts with the work tree: resolve the conflicts and `git cherry-pick --quit`, or undo with `git cherry-pick --abort`',
    );
  // Staged for review, no sequencer left behind: the change is the user's to commit.
  await runGitRaw(root, ['cherry-pick', '--quit']);
}
