import { RalphError } from '../errors.ts';
import type { GithubClient } from './github-client.ts';
import { postComment } from './issues.ts';
import { defuseMentions } from './mentions.ts';

/** A pull request as Ralph needs it. */
export interface PullRequest {
  number: number;
  nodeId: string;
  url: string;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  head: string;
  base: string;
}

interface PullJson {
  number: number;
  node_id: string;
  html_url: string;
  state: 'open' | 'closed';
  draft?: boolean;
  merged?: boolean;
  merged_at?: string | null;
  head: { ref: string };
  base: { ref: string };
}

const fromJson = (p: PullJson): PullRequest => ({
  number: p.number,
  nodeId: p.node_id,
  url: p.html_url,
  state: p.state,
  draft: p.draft === true,
  merged: p.merged === true || (p.merged_at !== null && p.merged_at !== undefined),
  head: p.head.ref,
  base: p.base.ref,
});

/** One repository's pull requests through the REST client. */
export interface RepoPulls {
  /** Throws `forge_denied` when the token cannot push (GET /repos: `permissions.push`). */
  checkPush(): Promise<{ defaultBranch: string }>;
  /** The open pull request whose head is `branch`, if there is one (adopted, never opened twice). */
  findOpen(branch: string): Promise<PullRequest | undefined>;
  open(input: {
    title: string;
    body: string;
    head: string;
    base: string;
    draft: boolean;
  }): Promise<PullRequest>;
  update(number: number, input: { body?: string; base?: string }): Promise<void>;
  get(number: number): Promise<PullRequest>;
  /** Takes a draft out of draft (by the pull request's GraphQL node id). */
  markReady(nodeId: string): Promise<void>;
  comment(number: number, body: string): Promise<void>;
}

/** The repository as the token sees it; `forge_denied` saying what to check when it cannot see it. */
export async function readRepo(
  client: GithubClient,
  owner: string,
  repo: string,
): Promise<{ default_branch: string; permissions?: { push?: boolean } }> {
  const path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
  return client
    .request<{ default_branch: string; permissions?: { push?: boolean } }>('GET', path)
    .catch((error: unknown) => {
      const status = (error as { status?: number }).status;
      if (status === 404 || status === 401)
        throw new RalphError(
          'forge_denied',
          `GitHub: the token cannot see ${owner}/${repo} (${status === 401 ? 'bad credentials' : 'not found'}): check the remote and that the token has access to this repository`,
        );
      throw error;
    });
}

export function repoPulls(client: GithubClient, owner: string, repo: string): RepoPulls {
  const base = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
  return {
    async checkPush() {
      const r = await readRepo(client, owner, repo);
      if (r.permissions?.push !== true)
        throw new RalphError(
          'forge_denied',
          `GitHub: the token cannot push to ${owner}/${repo} (permissions.push is false): give it Contents and Pull requests write access, or use another token; or set forge.pull_requests: off`,
        );
      return { defaultBranch: r.default_branch };
    },
    async findOpen(branch) {
      const list = await client.request<PullJson[]>(
        'GET',
        `${base}/pulls?state=open&head=${encodeURIComponent(`${owner}:${branch}`)}`,
      );
      const found = list.find((p) => p.head.ref === branch);
      return found ? fromJson(found) : undefined;
    },
    async open(input) {
      // Titles and bodies quote tasks the agent wrote: an @name in them pings nobody.
      const text = { title: defuseMentions(input.title), body: defuseMentions(input.body) };
      return fromJson(await client.request<PullJson>('POST', `${base}/pulls`, { ...input, ...text }));
    },
    async update(number, input) {
      const body = input.body === undefined ? {} : { body: defuseMentions(input.body) };
      await client.request('PATCH', `${base}/pulls/${number}`, { ...input, ...body });
    },
    async get(number) {
      return fromJson(await client.request<PullJson>('GET', `${base}/pulls/${number}`));
    },
    async markReady(nodeId) {
      // REST cannot take a pull request out of draft; GraphQL's mutation can.
      await client.graphql(
        'mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { number isDraft } } }',
        { id: nodeId },
      );
    },
    comment: (number, body) => postComment(client, base, number, body),
  };
}
