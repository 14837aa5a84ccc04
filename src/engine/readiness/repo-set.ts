import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { repoName } from '../../config/schema/repo-name.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import { readGitHead } from '../../git/head.ts';
import { hasRemote } from '../../git/push.ts';
import { describeRefusal, isGitRepo, repoState } from '../../git/repo-state.ts';
import { dirtyTreeMessage, requireClean, uncommittedFiles } from '../commit/workspace-git.ts';
import type { HealthResult } from './health-checks.ts';
import { rollbackSetting } from './rollback-readiness.ts';

/** One repository of `repos`, resolved: its name, its absolute path, its tests gate. */
export interface RepoEntry {
  name: string;
  /** As ralph.yml writes it (the prompt shows this). */
  path: string;
  root: string;
  /** `repos[i].gates.tests`, else `gates.tests`. */
  tests: RalphConfig['gates']['tests'];
  /** Its key in ralph.yml: `repos[1]`. */
  key: string;
}

/** The repositories of `repos` (empty without it), paths resolved against the workspace. */
export function repoEntries(workspace: string, config: RalphConfig): RepoEntry[] {
  return (config.repos ?? []).map((repo, i) => ({
    name: repoName(repo),
    path: repo.path,
    root: isAbsolute(repo.path) ? repo.path : resolve(workspace, repo.path),
    tests: repo.gates?.tests ?? config.gates.tests,
    key: `repos[${i}]`,
  }));
}

/**
 * The settings `repos` does not work with yet (pure): each message names both settings. `flags`
 * are the command line's (`--parallel`, `--worktree`).
 */
export function reposRefusals(
  config: RalphConfig,
  flags: { parallel?: boolean; worktree?: boolean },
): string[] {
  if (!config.repos) return [];
  const unsupported: [boolean, string][] = [
    [flags.parallel === true || config.parallel > 1, '--parallel (or parallel above 1)'],
    [flags.worktree === true, '--worktree'],
    [config.forge.pull_requests === 'per_milestone', 'forge.pull_requests: per_milestone'],
    [config.metric !== undefined, 'metric'],
    [config.tdd !== undefined, 'tdd'],
    [config.gates.review !== undefined, 'gates.review'],
  ];
  return unsupported
    .filter(([on]) => on)
    .map(
      ([, what]) =>
        `ralph.yml: repos and ${what} do not work together yet (docs/guide/multi-repo.md): remove ${what}, or remove repos and run one loop per repository`,
    );
}

/** Throws the first of reposRefusals as a RalphError (a run refuses to start with it). */
export function refuseUnsupportedWithRepos(
  config: RalphConfig,
  flags: { parallel?: boolean; worktree?: boolean },
): void {
  const [refusal] = reposRefusals(config, flags);
  if (refusal) throw new RalphError('preflight', refusal);
}

/**
 * Checks each repository before a run starts: it exists, is a git repository on a branch with no
 * rebase or merge under way, is clean with `git.require_clean`, has a commit to roll back to with
 * `gates.on_failure: rollback` or `rules`, and the remote with `git.push`. Throws a RalphError naming
 * ralph.yml, the key and what to do.
 */
export async function reposPreflight(
  workspace: string,
  config: RalphConfig,
  keepsUncommitted = false,
): Promise<RepoEntry[]> {
  const repos = repoEntries(workspace, config);
  for (const repo of repos) {
    const at = `ralph.yml: ${repo.key}.path (${repo.path})`;
    if (!existsSync(repo.root) || !statSync(repo.root).isDirectory())
      throw new RalphError(
        'preflight',
        `${at}: ${repo.root} does not exist: clone or create the repository there, or fix the path`,
      );
    if (!(await isGitRepo(repo.root)))
      throw new RalphError(
        'not_a_git_repo',
        `${at}: ${repo.root} is not a git repository: run \`git init\` in it, or fix the path`,
      );
    const refusal = describeRefusal(await repoState(repo.root));
    if (refusal) throw new RalphError('git_state', `repository ${repo.name} (${repo.root}): ${refusal}`);
    const rollback = rollbackSetting(config);
    if (rollback && (readGitHead(repo.root).commit ?? null) === null)
      throw new RalphError(
        'git_state',
        `repository ${repo.name} (${repo.root}): ${rollback} needs a commit to return to, and it has none yet: make a first commit there, then run again`,
      );
    if (config.git.push && !(await hasRemote(repo.root, config.git.remote)))
      throw new RalphError(
        'preflight',
        `repository ${repo.name} (${repo.root}): git.push is on but it has no remote "${config.git.remote}": \`git -C ${repo.path} remote add ${config.git.remote} <url>\`, or set git.push: false`,
      );
  }
  const dirty =
    requireClean(config) && !keepsUncommitted ? await reposDirtyMessage(workspace, config) : undefined;
  if (dirty) throw new RalphError('dirty_tree', dirty);
  return repos;
}

/** The first repository with uncommitted changes, named, or undefined when every one is clean. */
export async function reposDirtyMessage(workspace: string, config: RalphConfig): Promise<string | undefined> {
  for (const repo of repoEntries(workspace, config)) {
    const dirty = await dirtyTreeMessage(repo.root);
    if (dirty) return `repository ${repo.name} (${repo.root}): ${dirty}`;
  }
  return undefined;
}

/**
 * The pre-flight line of each repository (after reposPreflight passed): `repo api: /work/api (main,
 * clean)`, or how many files are uncommitted.
 */
export async function repoStatusChecks(workspace: string, config: RalphConfig): Promise<HealthResult[]> {
  return Promise.all(
    repoEntries(workspace, config).map(async (repo): Promise<HealthResult> => {
      const branch = readGitHead(repo.root).branch ?? 'detached';
      const files = (await uncommittedFiles(repo.root)).length;
      const tree = files === 0 ? 'clean' : `${files} uncommitted file(s)`;
      return { check: `repo ${repo.name}`, level: 'ok', message: `${repo.root} (${branch}, ${tree})` };
    }),
  );
}

/** What the prompt says about the repositories (pure): name → path, and where the agent runs. */
export function reposBlock(config: RalphConfig): string {
  if (!config.repos) return '';
  const lines = config.repos.map((r) => `- ${repoName(r)}: ${r.path}`);
  return `## Repositories\nYou run in the parent directory; this loop spans these git repositories (name: path). Change whichever the task needs; Ralph checks, tests and commits each repository you change separately.\n${lines.join('\n')}`;
}

/** `ralph run`'s check of `repos` (true when the loop spans repositories): refusals, then each repository. */
export async function multiRepoPreflight(
  workspace: string,
  config: RalphConfig,
  keepsUncommitted: boolean,
): Promise<boolean> {
  if (!config.repos) return false;
  refuseUnsupportedWithRepos(config, {});
  await reposPreflight(workspace, config, keepsUncommitted);
  return true;
}
