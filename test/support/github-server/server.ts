import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Answer, commentOnIssue, issueRoutes, type RequestInfo, type Route } from './issue-routes.ts';
import { type FakeRepo, GithubState } from './state.ts';

export { type FakeIssue, type FakePull, type FakeRepo, GithubState, type TokenGrant } from './state.ts';

/** One request the scripted GitHub received (the token is not kept: only whether one came). */
export interface GithubRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  authorized: boolean;
  at: number;
}

export interface GithubServer {
  /** The API base (`GITHUB_API_URL`): `http://127.0.0.1:<port>`. */
  url: string;
  state: GithubState;
  /** Every request, in order. */
  requests: GithubRequest[];
  close(): Promise<void>;
}

const notFound: Answer = {
  status: 404,
  body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
};
const forbidden: Answer = {
  status: 403,
  body: {
    message: 'Resource not accessible by personal access token',
    documentation_url: 'https://docs.github.com/rest',
  },
};

/**
 * A scripted GitHub REST API on 127.0.0.1 (a free port): repositories and what each token may do
 * (401 without or with an unknown token, 404 for a repository the token does not see, 403 for a
 * write with a read-only token), pull requests (draft, ready through GraphQL's
 * markPullRequestReadyForReview, comments), merged or closed by the test through `state`; issues
 * (listed with pull requests among them and paged by Link headers, commented on, closed).
 */
export async function startGithubServer(): Promise<GithubServer> {
  const state = new GithubState();
  const requests: GithubRequest[] = [];
  let base = '';

  /** The repository of the path when the token may see it, else the answer to give. */
  const repoFor = (owner: string, name: string, r: RequestInfo, write: boolean): FakeRepo | Answer => {
    const full = `${owner}/${name}`;
    const grant = r.token === undefined ? undefined : state.tokens.get(r.token);
    const repo = state.repos.get(full);
    if (!grant || !repo || !grant.repos.includes(full)) return notFound;
    if (write && !grant.push) return forbidden;
    return repo;
  };
  const isAnswer = (x: FakeRepo | Answer): x is Answer => 'status' in x;

  const routes: [string, RegExp, Route][] = [
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, false);
        if (isAnswer(repo)) return repo;
        const push = state.tokens.get(r.token ?? '')?.push === true;
        return {
          status: 200,
          body: {
            full_name: `${repo.owner}/${repo.name}`,
            default_branch: repo.default_branch,
            private: true,
            permissions: { admin: false, maintain: false, push, triage: push, pull: true },
          },
        };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, false);
        if (isAnswer(repo)) return repo;
        const full = `${repo.owner}/${repo.name}`;
        const wanted = r.query.state ?? 'open';
        const head = r.query.head?.split(':').at(-1);
        const list = state.pulls.filter(
          (p) =>
            p.repo === full &&
            (wanted === 'all' || p.state === wanted) &&
            (head === undefined || p.head === head),
        );
        return { status: 200, body: list.map((p) => state.pullJson(p, base)) };
      },
    ],
    [
      'POST',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, true);
        if (isAnswer(repo)) return repo;
        const full = `${repo.owner}/${repo.name}`;
        const head = String(r.body.head ?? '');
        const baseRef = String(r.body.base ?? '');
        const invalid = (field: string): Answer => ({
          status: 422,
          body: {
            message: 'Validation Failed',
            errors: [{ resource: 'PullRequest', field, code: 'invalid' }],
          },
        });
        if (!state.hasBranch(repo, head)) return invalid('head');
        if (!state.hasBranch(repo, baseRef)) return invalid('base');
        if (state.pulls.some((p) => p.repo === full && p.head === head && p.state === 'open'))
          return {
            status: 422,
            body: {
              message: 'Validation Failed',
              errors: [
                {
                  resource: 'PullRequest',
                  code: 'custom',
                  message: `A pull request already exists for ${repo.owner}:${head}.`,
                },
              ],
            },
          };
        const number = state.pulls.length + 1;
        const pr = {
          number,
          node_id: `PR_node${number}`,
          repo: full,
          title: String(r.body.title ?? ''),
          body: String(r.body.body ?? ''),
          head,
          base: baseRef,
          draft: r.body.draft === true,
          state: 'open' as const,
          merged: false,
          comments: [],
        };
        state.pulls.push(pr);
        return { status: 201, body: state.pullJson(pr, base) };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, false);
        if (isAnswer(repo)) return repo;
        const pr = state.pull(`${repo.owner}/${repo.name}`, Number(m[3]));
        return pr ? { status: 200, body: state.pullJson(pr, base) } : notFound;
      },
    ],
    [
      'PATCH',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, true);
        if (isAnswer(repo)) return repo;
        const pr = state.pull(`${repo.owner}/${repo.name}`, Number(m[3]));
        if (!pr) return notFound;
        if (typeof r.body.title === 'string') pr.title = r.body.title;
        if (typeof r.body.body === 'string') pr.body = r.body.body;
        if (typeof r.body.base === 'string') pr.base = r.body.base;
        return { status: 200, body: state.pullJson(pr, base) };
      },
    ],
    [
      'POST',
      /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, true);
        if (isAnswer(repo)) return repo;
        const pr = state.pull(`${repo.owner}/${repo.name}`, Number(m[3]));
        if (!pr) return commentOnIssue(state, repo, Number(m[3]), r.body.body);
        pr.comments.push(String(r.body.body ?? ''));
        return { status: 201, body: { id: pr.comments.length, body: r.body.body } };
      },
    ],
    [
      'POST',
      /^\/graphql$/,
      (_m, r) => {
        const query = String(r.body.query ?? '');
        const vars = (r.body.variables ?? {}) as Record<string, unknown>;
        const pr = state.pulls.find((p) => p.node_id === vars.id);
        if (!query.includes('markPullRequestReadyForReview') || !pr)
          return {
            status: 200,
            body: { data: null, errors: [{ message: 'scripted GitHub: unsupported query' }] },
          };
        const [owner = '', name = ''] = pr.repo.split('/');
        const repo = repoFor(owner, name, r, true);
        if (isAnswer(repo))
          return {
            status: 200,
            body: {
              data: null,
              errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible by personal access token' }],
            },
          };
        pr.draft = false;
        return {
          status: 200,
          body: {
            data: { markPullRequestReadyForReview: { pullRequest: { number: pr.number, isDraft: false } } },
          },
        };
      },
    ],
    ...issueRoutes(state, repoFor, () => base),
  ];

  const answer = (req: IncomingMessage, raw: string): Answer => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return { status: 400, body: { message: 'Problems parsing JSON' } };
    }
    const auth = req.headers.authorization;
    const token = auth?.match(/^(?:token|Bearer)\s+(\S+)$/i)?.[1];
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body,
      authorized: token !== undefined,
      at: Date.now(),
    });
    const fault = state.faults.findIndex((f) => f.method === method && f.path.test(url.pathname));
    if (fault >= 0) return state.faults.splice(fault, 1)[0] as Answer;
    if (token === undefined) return { status: 401, body: { message: 'Requires authentication' } };
    if (!state.tokens.has(token)) return { status: 401, body: { message: 'Bad credentials' } };
    for (const [m, path, route] of routes) {
      const match = url.pathname.match(path);
      if (m === method && match)
        return route(match, { method, body, query: Object.fromEntries(url.searchParams), token });
    }
    return notFound;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const a = answer(req, Buffer.concat(chunks).toString('utf8'));
      res.writeHead(a.status, { 'content-type': 'application/json; charset=utf-8', ...a.headers });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    state,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
