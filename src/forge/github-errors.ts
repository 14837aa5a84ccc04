import { RalphError } from '../errors.ts';
import type { HttpFailure } from '../http/http-failure.ts';
// How GitHub's refusals read: the error a failed call throws, and which rate limit it was.

/** An API answer that is not a success, with GitHub's message. */
export class GithubApiError extends RalphError {
  readonly status: number;
  /** A rate limit: how long until GitHub said it resets (ms), when it said. */
  readonly resetMs: number | undefined;
  /** The hourly quota is spent (`x-ratelimit-remaining: 0`), not a secondary limit. */
  readonly quotaSpent: boolean;
  /**
   * A rate limit (a 429, or a 403 that says so) is `forge_rate_limited`, not `forge_denied`: the
   * token is fine, the quota is used up; `resetMs` is how long until GitHub said it resets.
   */
  constructor(
    status: number,
    what: string,
    message: string,
    rateLimit?: { resetMs: number | undefined; quotaSpent?: boolean },
  ) {
    const answered = `GitHub API: ${what} answered ${status}${message ? ` (${message})` : ''}`;
    super(
      rateLimit
        ? 'forge_rate_limited'
        : status === 401 || status === 403 || status === 404
          ? 'forge_denied'
          : 'forge_failed',
      rateLimit ? `${answered}: the rate limit is used up${resetText(rateLimit.resetMs)}` : answered,
    );
    this.status = status;
    this.resetMs = rateLimit?.resetMs;
    this.quotaSpent = rateLimit?.quotaSpent === true;
  }
}

/** When a rate limit resets, as a person reads it. */
function resetText(ms: number | undefined): string {
  if (ms === undefined) return '; try again later';
  const at = new Date(Date.now() + ms);
  return `; it resets at ${at.toISOString().slice(11, 16)} UTC (in ${Math.ceil(ms / 60_000)} min), then \`ralph run --resume\``;
}

/** The hourly quota is spent (not a secondary limit's short `retry-after`): it ends at `x-ratelimit-reset`. */
export function quotaSpent(failure: HttpFailure): boolean {
  return (
    failure.kind === 'rate_limited' &&
    failure.headers?.get('x-ratelimit-remaining') === '0' &&
    failure.headers.get('x-ratelimit-reset') !== null &&
    failure.headers.get('retry-after') === null
  );
}
