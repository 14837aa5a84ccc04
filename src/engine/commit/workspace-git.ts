import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { commitAll } from '../../git/commit.ts';
import { describeRefusal, isGitRepo, repoState } from '../../git/repo-state.ts';
import type { PendingChanges } from '../../git/status-cache.ts';
import { changedFilesBetween, workingTreeChanges } from '../../git/working-tree.ts';
import { RUNTIME_PATHS } from '../../state/paths.ts';

/** Ralph's runtime paths (workspace-relative; the git layer maps them for a workspace in a subdirectory). */
async function runtimeExcludes(_workspace: string): Promise<readonly string[]> {
  return RUNTIME_PATHS;
}

/** Whether the config asks Ralph to work with git at all. */
export function gitEnabled(config: RalphConfig): boolean {
  return config.git.commit || config.git.push || requireClean(config);
}

export function requireClean(config: RalphConfig): boolean {
  return config.git.require_clean ?? config.git.commit;
}

export function listFiles(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(', ');
  return paths.length > 5 ? `${shown}, … (+${paths.length - 5} more)` : shown;
}

/** A fresh `git status` minus Ralph's runtime files (a loop passes its cached one instead). */
const statusNow =
  (workspace: string): PendingChanges =>
  async () =>
    workingTreeChanges(workspace, { exclude: await runtimeExcludes(workspace) });

/** The files a commit would take now (Ralph's runtime files excluded). */
export async function uncommittedFiles(
  workspace: string,
  pending: PendingChanges = statusNow(workspace),
): Promise<string[]> {
  return (await pending()).map((c) => c.path);
}

/** The message for a tree with uncommitted changes, or undefined when it is clean. */
export async function dirtyTreeMessage(
  workspace: string,
  pending: PendingChanges = statusNow(workspace),
): Promise<string | undefined> {
  const changes = await pending();
  if (changes.length === 0) return undefined;
  return (
    `uncommitted changes in ${changes.length} file(s): ${listFiles(changes.map((c) => c.path))}. ` +
    'If an interrupted or failed iteration left them, review them, then commit or discard them yourself ' +
    '(or set git.require_clean: false). Ralph never discards changes.'
  );
}

/**
 * Checks made before a loop with git features starts: a repository, on a branch, no rebase or
 * merge in progress, and (with require_clean) no uncommitted changes. Throws a RalphError saying
 * what to do.
 */
export async function gitPreflight(
  workspace: string,
  config: RalphConfig,
  /** The run resumes from changes a human has not let in yet (rejected, or a held review point). */
  keepsUncommitted = false,
  /** Whether it is a repository, when the caller already asked git (the start's one rev-parse). */
  inRepo?: Promise<boolean>,
): Promise<{ branch: string | null } | undefined> {
  if (!gitEnabled(config)) return undefined;
  if (!(await (inRepo ?? isGitRepo(workspace)))) {
    throw new RalphError(
      'not_a_git_repo',
      `${workspace} is not a git repository but git.commit/git.push is on: run \`git init\`, or turn them off in ralph.yml`,
    );
  }
  const state = await repoState(workspace);
  const refusal = describeRefusal(state);
  if (refusal) throw new RalphError('git_state', refusal);
  if (requireClean(config) && !keepsUncommitted) {
    const dirty = await dirtyTreeMessage(workspace);
    if (dirty) throw new RalphError('dirty_tree', dirty);
  }
  return { branch: state.branch };
}

/** Files an iteration changed: committed between two heads plus what is left uncommitted. */
export async function filesChanged(
  workspace: string,
  before: string | null,
  after: string | null,
  pendingChanges: PendingChanges = statusNow(workspace),
): Promise<string[]> {
  const committed = before === after ? [] : await changedFilesBetween(workspace, before, after);
  const pending = (await pendingChanges()).map((c) => c.path);
  return [...new Set([...committed, ...pending])].sort();
}

/** `ralph: <first line of the agent's summary>` with bullet details. */
export function commitMessage(opts: {
  summary: string;
  iteration: number;
  hat: string | null;
  backend: string;
  files: readonly string[];
  tests: string | null;
}): string {
  const firstLine =
    opts.summary
      .split('\n')
      .map((l) => l.replace(/^[#>*\-\s`]+|[*`\s]+$/g, '').trim())
      .find(
        (l) => l.length > 0 && !/^(LOOP_COMPLETE|PROJECT_COMPLETE)$/.test(l) && !l.startsWith('<event'),
      ) ?? '';
  const subject = firstLine ? firstLine.slice(0, 72) : `iteration ${opts.iteration}`;
  const bullets = [
    `- Iteration ${opts.iteration}${opts.hat ? ` (hat ${opts.hat})` : ''}, backend ${opts.backend}`,
    opts.files.length > 0 ? `- Changed: ${listFiles(opts.files)}` : null,
    opts.tests ? `- Tests: ${opts.tests}` : null,
  ].filter((b): b is string => b !== null);
  return `ralph: ${subject}\n\n${bullets.join('\n')}\n`;
}

/** Commits what the iteration left uncommitted (null when the agent already committed everything). */
export async function commitIteration(workspace: string, message: string): Promise<string | null> {
  return (await commitAll(workspace, message, { exclude: await runtimeExcludes(workspace) })).commit;
}
