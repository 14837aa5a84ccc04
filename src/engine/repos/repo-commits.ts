import { relative, sep } from 'node:path';
import { readGitHead } from '../../git/head.ts';
import { type CommitInput, commitStep, pushStep } from '../commit/commit-and-push.ts';
import { filesChanged } from '../commit/workspace-git.ts';
import type { RunContext } from '../context/run-context.ts';
import { type RepoEntry, repoEntries } from '../readiness/repo-set.ts';

/** A repository of `repos` that changed since Ralph's last commit there, and the files it changed. */
export interface RepoChange {
  repo: RepoEntry;
  /** Its HEAD after Ralph's last commit there (state.repo_heads). */
  before: string | null;
  files: string[];
}

/** Each repository that changed since Ralph's last commit there: committed by the agent, or not yet. */
export async function repoChanges(ctx: RunContext): Promise<RepoChange[]> {
  const heads = ctx.state.repo_heads ?? {};
  const out: RepoChange[] = [];
  for (const repo of repoEntries(ctx.options.workspace, ctx.config)) {
    const before = heads[repo.name] ?? null;
    const files = await filesChanged(repo.root, before, readGitHead(repo.root).commit ?? null);
    if (files.length > 0) out.push({ repo, before, files });
  }
  return out;
}

/** A repository's file as the workspace names it (`api/v2.txt`): what rules and review points see. */
export function workspacePath(workspace: string, repo: RepoEntry, file: string): string {
  const under = relative(workspace, repo.root).split(sep).join('/');
  return under ? `${under}/${file}` : file;
}

/**
 * `git.commit` with repos: each changed repository gets its own commit (its own tests line from
 * `repo_tests`), and the next iteration's changes start there. Returns each repository's commit.
 */
export async function commitRepos(
  ctx: RunContext,
  input: CommitInput,
): Promise<Record<string, string | null>> {
  const commits: Record<string, string | null> = {};
  for (const { repo, before } of await repoChanges(ctx)) {
    commits[repo.name] = await commitStep(
      ctx,
      { ...input, before, tests: input.repo_tests?.[repo.name] ?? null },
      repo,
    );
    // A kill before the state is saved re-counts these changes, never loses them.
    ctx.state.repo_heads = { ...ctx.state.repo_heads, [repo.name]: readGitHead(repo.root).commit ?? null };
  }
  return commits;
}

/** `git.push` with repos: each named repository pushes its branch; the errors by repository. */
export async function pushRepos(
  ctx: RunContext,
  iteration: number,
  names: readonly string[],
): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  for (const repo of repoEntries(ctx.options.workspace, ctx.config)) {
    if (!names.includes(repo.name)) continue;
    const error = await pushStep(ctx, iteration, repo);
    if (error) errors[repo.name] = error;
  }
  return errors;
}
