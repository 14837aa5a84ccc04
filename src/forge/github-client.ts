import { notJsonAnswer, RalphError } from '../errors.ts';
import { HttpFailure } from '../http/http-failure.ts';
import { type HttpAnswer, type HttpOptions, httpRequest } from '../http/http-request.ts';
import { GithubApiError, quotaSpent } from './github-errors.ts';

/** How a {@link GithubClient} talks to the API; every effect can be replaced in tests. */
export interface GithubClientOptions {
  apiUrl: string;
  token: string;
  /**
   * The run's redaction: every string of a request's body (titles, bodies, comments, branch names)
   * goes out through it; a path that holds a secret is not sent at all.
   */
  redact: (text: string) => string;
  fetch?: typeof fetch;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  /** Attempts for a 5xx, a network error or a secondary rate limit (default 4). */
  attempts?: number;
  /** Backoff of the first retry (default 1 s), doubled each time unless the API says when. */
  backoffMs?: number;
  /** Sleeps between tries (the HTTP core's own by default). */
  sleep?: HttpOptions['sleep'];
  /**
   * The primary rate limit is used up (`x-ratelimit-remaining: 0`): the run waits for its reset
   * `resetMs` from now (it parks) and resolves true to try again, or false to fail with
   * `forge_rate_limited`. Absent: such an answer is retried as any rate limit (waits capped at a minute).
   */
  waitForReset?: (resetMs: number, message: string) => Promise<boolean>;
}

/** The REST client Ralph's forge uses: JSON in, JSON out, the token only in the Authorization header. */
export interface GithubClient {
  apiUrl: string;
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
  /**
   * A GET of a list, following the `Link: rel="next"` pages (100 per page) until `max` items;
   * `truncated` says more were left.
   */
  list<T>(path: string, max: number): Promise<{ items: T[]; truncated: boolean }>;
  /** A GraphQL call (`<api>/graphql`, or `/api/graphql` for GitHub Enterprise's `/api/v3`). */
  graphql<T>(query: string, variables: Record<string, unknown>): Promise<T>;
}

/** What GITHUB_API_URL must be, for an answer that is not the API's. */
const API_URL_HINT =
  'check GITHUB_API_URL: it must be the API (https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise), not the web root, and that no proxy answers in its place';

/**
 * A success's body as JSON. No content (204, or an empty answer to a write) is undefined; anything
 * else that is not JSON (a proxy's login page, an Enterprise web root) is a clear error.
 */
function jsonOf<T>(res: HttpAnswer, url: string, method: string, token: string): T {
  const text = res.text;
  if (text === '' && (res.status === 204 || method !== 'GET')) return undefined as T;
  try {
    if (text !== '') return JSON.parse(text) as T;
  } catch {}
  const where = `GitHub API ${method} ${url.split('?')[0]}`;
  const said = notJsonAnswer(where, res.status, res.headers.get('content-type'), text).replaceAll(
    token,
    '***',
  );
  throw new RalphError('forge_failed', `${said}: ${API_URL_HINT}`);
}

/** The `rel="next"` URL of a Link header, only when it is on the API's own origin (the token goes there). */
function nextPage(link: string | null, apiUrl: string): string | undefined {
  const next = link?.split(',').find((part) => /;\s*rel="?next"?/.test(part));
  const url = next?.match(/<([^>]+)>/)?.[1];
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin === new URL(apiUrl).origin ? url : undefined;
  } catch {
    return undefined;
  }
}

/** A URL as text with its %-escapes undone (a secret cannot hide in them); the URL itself when malformed. */
function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** A small REST client on the HTTP core: timeouts, bounded bodies, retries with backoff. */
export function createGithubClient(o: GithubClientOptions): GithubClient {
  const backoff = o.backoffMs ?? 1000;
  // Doubled each retry unless the API says when (a wait it asks for is capped at a minute); a spent
  // hourly quota goes to the run's wait instead, when it has one.
  const retry = {
    delaysMs: Array.from({ length: Math.max(0, (o.attempts ?? 4) - 1) }, (_, i) => backoff * 2 ** i),
    maxWaitMs: 60_000,
    ...(o.waitForReset ? { retryIf: (f: HttpFailure) => !quotaSpent(f) } : {}),
  };
  const apiUrl = o.apiUrl.replace(/\/+$/, '');
  const graphqlUrl = apiUrl.endsWith('/api/v3') ? `${apiUrl.slice(0, -3)}graphql` : `${apiUrl}/graphql`;

  const callOnce = async <T>(
    method: string,
    url: string,
    what: string,
    body?: unknown,
  ): Promise<{ data: T; headers: Headers }> => {
    const plain = safeDecode(url);
    if (o.redact(plain) !== plain)
      throw new RalphError(
        'forge_secret',
        `GitHub API: ${o.redact(what)} not sent: its path holds a secret (${o.redact(plain.split('?')[0] ?? '')})`,
      );
    // One door: a secret the agent put in a title, body or branch never reaches the forge.
    const json =
      body === undefined
        ? undefined
        : JSON.stringify(body, (_key, value) => (typeof value === 'string' ? o.redact(value) : value));
    let res: HttpAnswer;
    try {
      res = await httpRequest(
        {
          method,
          url,
          headers: {
            accept: 'application/vnd.github+json',
            authorization: `Bearer ${o.token}`,
            'x-github-api-version': '2022-11-28',
            'user-agent': 'ralph-harness',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(json === undefined ? {} : { body: json }),
        },
        {
          timeoutMs: o.timeoutMs ?? 30_000,
          retry,
          ...(o.fetch ? { fetch: o.fetch } : {}),
          ...(o.sleep ? { sleep: o.sleep } : {}),
        },
      );
    } catch (error) {
      if (!(error instanceof HttpFailure)) throw error;
      // The cause names the host and the failure; never the request's headers.
      if (error.status === undefined)
        throw new RalphError('forge_failed', `GitHub API: ${what} failed: ${error.message} (${apiUrl})`);
      let message = '';
      try {
        message = String((JSON.parse(error.text) as { message?: unknown }).message ?? '');
      } catch {}
      throw new GithubApiError(
        error.status,
        what,
        message.replaceAll(o.token, '***'),
        error.kind === 'rate_limited'
          ? { resetMs: error.retryAfterMs, quotaSpent: quotaSpent(error) }
          : undefined,
      );
    }
    return { data: jsonOf<T>(res, url, method, o.token), headers: res.headers };
  };

  // A spent hourly quota: the run waits for its reset (parked), then the same request goes again.
  const call = async <T>(
    method: string,
    url: string,
    what: string,
    body?: unknown,
  ): Promise<{ data: T; headers: Headers }> => {
    for (;;) {
      try {
        return await callOnce<T>(method, url, what, body);
      } catch (error) {
        if (!(error instanceof GithubApiError) || !error.quotaSpent || !o.waitForReset) throw error;
        if (!(await o.waitForReset(error.resetMs ?? 0, error.message))) throw error;
      }
    }
  };

  return {
    apiUrl,
    request: async (method, path, body) =>
      (await call<never>(method, `${apiUrl}${path}`, `${method} ${path.split('?')[0]}`, body)).data,
    list: async <T>(path: string, max: number) => {
      const items: T[] = [];
      const what = `GET ${path.split('?')[0]}`;
      let url: string | undefined = `${apiUrl}${path}${path.includes('?') ? '&' : '?'}per_page=100`;
      while (url !== undefined && items.length < max) {
        const page: { data: T[]; headers: Headers } = await call<T[]>('GET', url, what);
        if (!Array.isArray(page.data))
          throw new RalphError(
            'forge_failed',
            `GitHub API: ${what} answered ${page.data === null ? 'null' : typeof page.data}, not a list (${url.split('?')[0]}): ${API_URL_HINT}`,
          );
        items.push(...page.data);
        url = nextPage(page.headers.get('link'), apiUrl);
      }
      return { items: items.slice(0, max), truncated: items.length > max || url !== undefined };
    },
    graphql: async (query, variables) => {
      const { data: out } = await call<{ data?: unknown; errors?: { message: string }[] }>(
        'POST',
        graphqlUrl,
        'GraphQL',
        { query, variables },
      );
      if (out.errors?.length)
        throw new RalphError(
          'forge_failed',
          `GitHub GraphQL: ${out.errors.map((e) => e.message).join('; ')}`,
        );
      return out.data as never;
    },
  };
}
