import { execFileSync } from 'node:child_process';

/** What a token may do, as a fine-grained token's repository access says it. */
export interface TokenGrant {
  /** Repositories (`owner/name`) the token sees; others answer 404, as GitHub hides them. */
  repos: string[];
  /** Contents and pull requests: write. False: read only (`permissions.push: false`, 403 on writes). */
  push: boolean;
}

/** A repository the scripted API knows. */
export interface FakeRepo {
  owner: string;
  name: string;
  default_branch: string;
  /** The bare repository pushes go to: branches exist when it has them, merges move its refs. */
  bare?: string | undefined;
}

/** A pull request as the scripted API keeps it. */
export interface FakePull {
  number: number;
  node_id: string;
  repo: string;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  comments: string[];
}

/** An issue as the scripted API keeps it (`pull: true`: a pull request, as the issues API lists them). */
export interface FakeIssue {
  number: number;
  repo: string;
  title: string;
  body: string;
  labels: string[];
  milestone?: { number: number; title: string } | undefined;
  state: 'open' | 'closed';
  pull?: boolean;
  comments: string[];
}

/** The scripted GitHub's state: repositories, tokens, pull requests (numbered per server, from 1). */
export class GithubState {
  readonly repos = new Map<string, FakeRepo>();
  readonly tokens = new Map<string, TokenGrant>();
  readonly pulls: FakePull[] = [];
  readonly issues: FakeIssue[] = [];
  /** Answers a test forces on the next requests matching a path (e.g. two 502s, then the real one). */
  readonly faults: {
    method: string;
    path: RegExp;
    status: number;
    body?: unknown;
    headers?: Record<string, string>;
  }[] = [];

  addRepo(full: string, opts: { bare?: string; defaultBranch?: string } = {}): FakeRepo {
    const [owner = '', name = ''] = full.split('/');
    const repo = { owner, name, default_branch: opts.defaultBranch ?? 'main', bare: opts.bare };
    this.repos.set(full, repo);
    return repo;
  }

  /** Adds an issue (numbered after the highest issue so far unless given). */
  addIssue(
    full: string,
    input: Partial<Omit<FakeIssue, 'repo' | 'comments'>> & { title: string },
  ): FakeIssue {
    const issue: FakeIssue = {
      number: input.number ?? Math.max(0, ...this.issues.map((i) => i.number)) + 1,
      repo: full,
      body: '',
      labels: [],
      state: 'open',
      comments: [],
      ...input,
    };
    this.issues.push(issue);
    return issue;
  }

  issue(repo: string, number: number): FakeIssue | undefined {
    return this.issues.find((i) => i.repo === repo && i.number === number);
  }

  /** The REST shape of an issue (a pull request has `pull_request`). */
  issueJson(issue: FakeIssue): Record<string, unknown> {
    return {
      number: issue.number,
      title: issue.title,
      body: issue.body || null,
      state: issue.state,
      labels: issue.labels.map((name) => ({ name })),
      milestone: issue.milestone ?? null,
      html_url: `https://github.com/${issue.repo}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
      ...(issue.pull
        ? { pull_request: { url: `https://api.github.com/repos/${issue.repo}/pulls/${issue.number}` } }
        : {}),
    };
  }

  addToken(token: string, grant: TokenGrant): void {
    this.tokens.set(token, grant);
  }

  /** Whether `branch` exists: in the bare repository when there is one, else always. */
  hasBranch(repo: FakeRepo, branch: string): boolean {
    if (!repo.bare) return true;
    try {
      execFileSync('git', ['-C', repo.bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
        stdio: 'ignore',
      });
      return true;
    } catch {
      return false;
    }
  }

  pull(repo: string, number: number): FakePull | undefined {
    return this.pulls.find((p) => p.repo === repo && p.number === number);
  }

  /**
   * Merges a pull request as a person would on github.com ("Rebase and merge" of a branch that is
   * ahead: the base branch moves to the head's commit in the bare repository).
   */
  merge(number: number): FakePull {
    const pr = this.pulls.find((p) => p.number === number && p.state === 'open');
    if (!pr) throw new Error(`scripted GitHub: no open pull request #${number}`);
    const repo = this.repos.get(pr.repo);
    if (repo?.bare)
      execFileSync('git', ['-C', repo.bare, 'update-ref', `refs/heads/${pr.base}`, `refs/heads/${pr.head}`]);
    pr.state = 'closed';
    pr.merged = true;
    return pr;
  }

  /** Closes a pull request without merging it. */
  close(number: number): FakePull {
    const pr = this.pulls.find((p) => p.number === number);
    if (!pr) throw new Error(`scripted GitHub: no pull request #${number}`);
    pr.state = 'closed';
    return pr;
  }

  /** The REST shape of a pull request. */
  pullJson(pr: FakePull, url: string): Record<string, unknown> {
    const [owner] = pr.repo.split('/');
    return {
      number: pr.number,
      node_id: pr.node_id,
      title: pr.title,
      body: pr.body,
      state: pr.state,
      draft: pr.draft,
      merged: pr.merged,
      merged_at: pr.merged ? new Date().toISOString() : null,
      html_url: `https://github.com/${pr.repo}/pull/${pr.number}`,
      url: `${url}/repos/${pr.repo}/pulls/${pr.number}`,
      head: { ref: pr.head, label: `${owner}:${pr.head}` },
      base: { ref: pr.base },
    };
  }
}
