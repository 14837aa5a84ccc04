import type { FakeRepo, GithubState } from './state.ts';

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> };
export interface RequestInfo {
  method: string;
  body: Record<string, unknown>;
  query: Record<string, string>;
  token: string | undefined;
}
export type Route = (m: RegExpMatchArray, r: RequestInfo) => Answer;
type RepoFor = (owner: string, name: string, r: RequestInfo, write: boolean) => FakeRepo | Answer;

const isAnswer = (x: FakeRepo | Answer): x is Answer => 'status' in x;
const notFound: Answer = { status: 404, body: { message: 'Not Found' } };

/**
 * The issues endpoints: the list (open/closed/all, `labels`, `milestone` by number, pull requests
 * included as GitHub does, `per_page`/`page` with a Link header), milestones, comments, closing.
 */
export function issueRoutes(
  state: GithubState,
  repoFor: RepoFor,
  base: () => string,
): [string, RegExp, Route][] {
  return [
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/issues$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, false);
        if (isAnswer(repo)) return repo;
        const full = `${repo.owner}/${repo.name}`;
        const wanted = r.query.state ?? 'open';
        const labels = r.query.labels?.split(',').filter(Boolean) ?? [];
        const milestone = r.query.milestone;
        const all = state.issues
          .filter(
            (i) =>
              i.repo === full &&
              (wanted === 'all' || i.state === wanted) &&
              labels.every((l) => i.labels.includes(l)) &&
              (milestone === undefined || String(i.milestone?.number) === milestone),
          )
          .sort((a, b) => a.number - b.number);
        const perPage = Math.min(100, Number(r.query.per_page ?? 30));
        const page = Number(r.query.page ?? 1);
        const slice = all.slice((page - 1) * perPage, page * perPage);
        const headers: Record<string, string> = {};
        if (page * perPage < all.length) {
          const next = new URLSearchParams({ ...r.query, page: String(page + 1) });
          headers.link = `<${base()}/repos/${full}/issues?${next}>; rel="next"`;
        }
        return { status: 200, body: slice.map((i) => state.issueJson(i)), headers };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/milestones$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, false);
        if (isAnswer(repo)) return repo;
        const full = `${repo.owner}/${repo.name}`;
        const seen = new Map<number, { number: number; title: string }>();
        for (const i of state.issues)
          if (i.repo === full && i.milestone) seen.set(i.milestone.number, i.milestone);
        return { status: 200, body: [...seen.values()] };
      },
    ],
    [
      'PATCH',
      /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/,
      (m, r) => {
        const repo = repoFor(m[1] ?? '', m[2] ?? '', r, true);
        if (isAnswer(repo)) return repo;
        const issue = state.issue(`${repo.owner}/${repo.name}`, Number(m[3]));
        if (!issue) return notFound;
        if (r.body.state === 'closed' || r.body.state === 'open') issue.state = r.body.state;
        return { status: 200, body: state.issueJson(issue) };
      },
    ],
  ];
}

/** A comment on an issue (the pull request comments route falls back here). */
export function commentOnIssue(state: GithubState, repo: FakeRepo, number: number, body: unknown): Answer {
  const issue = state.issue(`${repo.owner}/${repo.name}`, number);
  if (!issue) return notFound;
  issue.comments.push(String(body ?? ''));
  return { status: 201, body: { id: issue.comments.length, body } };
}
