import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import type { IssueFilter, IssueForge } from '../../forge/open-forge.ts';
import { configuredRemoteUrl } from '../../git/branches.ts';
import { readGitHead } from '../../git/head.ts';
import type { PreflightEvent } from '../../observe/events.ts';
import { ralphPaths } from '../../state/paths.ts';
import type { Task } from '../../state/tasks/task.ts';
import { readTasks } from '../../state/tasks/task-file.ts';
import { type ImportResult, importIssueTasks, markIssueClosed } from '../../state/tasks/task-import.ts';
import type { RunContext } from '../context/run-context.ts';
import { runRedactor } from '../context/run-redactor.ts';

/** Where the issues are: the workspace, its config (`git.remote`, `forge.host`) and the environment. */
export interface IssueSourceOptions {
  workspace: string;
  config: RalphConfig;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** Opens the issues of the push remote's repository on GitHub (errors say what to do). */
export async function openRemoteIssues(o: IssueSourceOptions): Promise<IssueForge> {
  const remote = o.config.git.remote;
  const url = await configuredRemoteUrl(o.workspace, remote).catch(() => undefined);
  if (url === undefined)
    throw new RalphError(
      'forge_unsupported',
      `importing GitHub issues needs a git repository with a remote "${remote}" on GitHub: \`git remote add ${remote} https://github.com/<owner>/<repo>.git\` (or set git.remote)`,
    );
  // The forge's client loads when a run or an import talks to GitHub, not on every run's start.
  const { openIssueForge } = await import('../../forge/open-forge.ts');
  return openIssueForge({
    remote: { name: remote, url },
    host: o.config.forge.host,
    env: o.env,
    workspace: o.workspace,
    redact: runRedactor(o.env, o.config),
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
}

/** What an import did, and from where. */
export interface IssueImport extends ImportResult {
  /** `owner/repo`. */
  repo: string;
  /** Open issues read (pull requests not counted). */
  open: number;
  /** More open issues than the cap: the rest were not read. */
  truncated: boolean;
}

/** Imports the open issues (not pull requests) of the remote's repository as tasks. */
export async function importGithubIssues(
  o: IssueSourceOptions & { filter: IssueFilter; loopId?: string | undefined },
): Promise<IssueImport> {
  const forge = await openRemoteIssues(o);
  const { issues, truncated } = await forge.issues.listOpen(o.filter);
  const repo = `${forge.target.owner}/${forge.target.repo}`;
  const result = importIssueTasks(ralphPaths(o.workspace).tasks, repo, issues, { loopId: o.loopId });
  return { ...result, repo, open: issues.length, truncated };
}

/** One line saying what an import did. */
export function describeImport(r: IssueImport): string {
  const parts = [`${r.added.length} new`, `${r.updated.length} updated`, `${r.unchanged} unchanged`];
  const cap = r.truncated ? ' (only the first 500 open issues were read)' : '';
  return `${r.open} open issue${r.open === 1 ? '' : 's'} of ${r.repo}: ${parts.join(', ')}${cap}`;
}

/** Done tasks imported from an issue that Ralph has not closed yet. */
export function issuesToClose(tasks: readonly Task[]): Task[] {
  return tasks.filter((t) => t.status === 'closed' && t.issue && !t.issue.closed_at);
}

/** The page of a commit next to an issue's page: `https://<host>/<o>/<r>/commit/<sha>`. */
const commitUrl = (issueUrl: string, sha: string) => issueUrl.replace(/\/issues\/\d+$/, `/commit/${sha}`);

/**
 * For each task imported from an issue of this repository that is now done: a comment linking the
 * commit that did it (and the pull request, when one carries it), then the issue closed — once
 * (the task remembers it). Issues Ralph did not import are never touched. Returns the numbers closed.
 */
export async function closeDoneIssues(
  o: IssueSourceOptions & { commit?: string | undefined; pull?: { number: number; url: string } | undefined },
): Promise<number[]> {
  const path = ralphPaths(o.workspace).tasks;
  const due = issuesToClose(readTasks(path));
  if (due.length === 0) return [];
  const forge = await openRemoteIssues(o);
  const repo = `${forge.target.owner}/${forge.target.repo}`;
  const commit = o.commit ?? readGitHead(o.workspace).commit ?? undefined;
  const closed: number[] = [];
  for (const task of due) {
    const issue = task.issue;
    if (!issue || issue.repo !== repo) continue;
    const where = [
      ...(commit ? [`commit ${commitUrl(issue.url, commit)}`] : []),
      ...(o.pull ? [`pull request #${o.pull.number} (${o.pull.url})`] : []),
    ];
    await forge.issues.comment(
      issue.number,
      `Done by Ralph (task ${task.id})${where.length > 0 ? ` in ${where.join(', ')}` : ''}.`,
    );
    await forge.issues.close(issue.number);
    markIssueClosed(path, task.id);
    closed.push(issue.number);
  }
  return closed;
}

type HealthResult = PreflightEvent['checks'][number];

/** `tasks.source: github` at the start of a run: the open issues imported, as a pre-flight line. */
export async function issuesPreflight(o: IssueSourceOptions & { loopId?: string }): Promise<HealthResult[]> {
  if (o.config.tasks.source !== 'github') return [];
  try {
    const r = await importGithubIssues({ ...o, filter: o.config.tasks.github ?? {} });
    return [{ check: 'Issues', level: 'ok', message: describeImport(r) }];
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return [{ check: 'Issues', level: 'fatal', message: error.message }];
  }
}

/**
 * After an iteration's commit (and push): the issues of tasks done in it are commented on with the
 * commit (and the milestone's pull request when `forge.pull_requests` made one) and closed. A
 * failure is a warning; the issue is tried again after the next iteration.
 */
export async function closeIssuesStep(ctx: RunContext): Promise<void> {
  const { options, config, state } = ctx;
  if (!config.tasks.enabled) return;
  const active = state.forge?.active;
  const pull = active ? state.forge?.prs.find((p) => p.branch === active.branch) : undefined;
  try {
    await closeDoneIssues({
      workspace: options.workspace,
      config,
      env: options.env ?? process.env,
      pull,
    });
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    const message = `could not close the GitHub issue of a done task: ${error.message}`;
    if (!ctx.warned.has(message)) {
      ctx.warned.add(message);
      ctx.emit({ type: 'notice', level: 'warn', message });
    }
  }
}
