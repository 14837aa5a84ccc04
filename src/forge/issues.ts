import { RalphError } from '../errors.ts';
import type { ImportedIssue } from '../state/tasks/task-import.ts';
import type { GithubClient } from './github-client.ts';
import { defuseMentions } from './mentions.ts';

/** The most open issues one import reads (5 pages of 100); past it the import says so. */
export const MAX_IMPORTED_ISSUES = 500;

/** An open issue as Ralph imports it (the shape the task import takes). */
export type Issue = ImportedIssue;

interface IssueJson {
  number: number;
  title: string;
  body?: string | null;
  html_url: string;
  labels?: (string | { name?: string })[];
  /** Present on pull requests: the issues API lists them too. */
  pull_request?: unknown;
}

/** Which open issues to import. */
export interface IssueFilter {
  /** Only issues with this label. */
  label?: string | undefined;
  /** Only issues in this milestone: its title or its number. */
  milestone?: string | undefined;
}

/**
 * The issue numbers a body says block it: lines like "Blocked by #3", "depends on #4 and #7",
 * "- blocked by: #5, #6" (case does not matter; numbers in other lines do not count).
 */
export function blockersOf(body: string): number[] {
  const out = new Set<number>();
  for (const line of body.split(/\r?\n/)) {
    const at = line.match(/\b(?:blocked\s+by|depends\s+on)\b:?(.*)$/i);
    if (!at) continue;
    for (const m of (at[1] ?? '').matchAll(/(?<![\w/])#(\d{1,9})\b/g)) out.add(Number(m[1]));
  }
  return [...out];
}

/** One repository's issues through the REST client. */
export interface RepoIssues {
  /** Open issues (never pull requests), oldest first, at most {@link MAX_IMPORTED_ISSUES}. */
  listOpen(filter: IssueFilter): Promise<{ issues: Issue[]; truncated: boolean }>;
  comment(number: number, body: string): Promise<void>;
  /** Closes an issue as completed. */
  close(number: number): Promise<void>;
}

/** Comments on an issue or a pull request (GitHub's pull requests are issues for comments); its @names ping nobody. */
export async function postComment(client: GithubClient, repoPath: string, number: number, body: string) {
  await client.request('POST', `${repoPath}/issues/${number}/comments`, { body: defuseMentions(body) });
}

export function repoIssues(client: GithubClient, owner: string, repo: string): RepoIssues {
  const base = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;

  /** The API's `milestone` parameter: the number as given, else the number of the milestone with that title. */
  const milestoneNumber = async (wanted: string): Promise<string> => {
    if (/^\d+$/.test(wanted)) return wanted;
    const { items } = await client.list<{ number: number; title: string }>(
      `${base}/milestones?state=all`,
      1000,
    );
    const found =
      items.find((m) => m.title === wanted) ??
      items.find((m) => m.title.toLowerCase() === wanted.toLowerCase());
    if (!found)
      throw new RalphError(
        'forge_failed',
        `GitHub: ${owner}/${repo} has no milestone "${wanted}"${items.length > 0 ? ` (it has: ${items.map((m) => m.title).join(', ')})` : ''}: pass a milestone's title or number`,
      );
    return String(found.number);
  };

  return {
    async listOpen(filter) {
      const query = new URLSearchParams({ state: 'open', sort: 'created', direction: 'asc' });
      if (filter.label) query.set('labels', filter.label);
      if (filter.milestone) query.set('milestone', await milestoneNumber(filter.milestone));
      // Pull requests come in the same list; they are fetched (and counted against the cap) but skipped.
      const { items, truncated } = await client.list<IssueJson>(
        `${base}/issues?${query}`,
        MAX_IMPORTED_ISSUES,
      );
      const issues = items
        .filter((i) => i.pull_request === undefined)
        .map((i) => ({
          number: i.number,
          title: i.title,
          body: i.body ?? '',
          labels: (i.labels ?? []).flatMap((l) => {
            const name = typeof l === 'string' ? l : l.name;
            return name ? [name] : [];
          }),
          url: i.html_url,
          blockedBy: blockersOf(i.body ?? ''),
        }));
      return { issues, truncated };
    },
    comment: (number, body) => postComment(client, base, number, body),
    async close(number) {
      await client.request('PATCH', `${base}/issues/${number}`, {
        state: 'closed',
        state_reason: 'completed',
      });
    },
  };
}
