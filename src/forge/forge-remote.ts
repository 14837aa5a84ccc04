import { RalphError } from '../errors.ts';

/** Where a push remote points: the host and the repository on it. */
export interface RemoteLocation {
  host: string;
  owner: string;
  repo: string;
}

/** The forge of a push remote: GitHub (github.com or a GitHub Enterprise host) with its API base. */
export interface ForgeTarget extends RemoteLocation {
  platform: 'github';
  /** The remote as configured (`remote.<name>.url`, before git's `insteadOf` rewriting). */
  url: string;
  /** REST API base, without a trailing slash. */
  apiUrl: string;
}

/** What the forge is opened for: the errors name the feature and how to do without it. */
export type ForgePurpose = 'pull_requests' | 'issues';

export const PURPOSE: Record<ForgePurpose, { needs: string; otherwise: string }> = {
  pull_requests: {
    needs: 'forge.pull_requests needs',
    otherwise: 'set forge.pull_requests: off to run without pull requests',
  },
  issues: {
    needs: 'importing GitHub issues as tasks needs',
    otherwise: 'or keep tasks in .ralph/agent/tasks.jsonl (tasks.source: file, the default)',
  },
};

/**
 * Host and `owner/repo` of a remote URL: `https://host/o/r(.git)`, `ssh://git@host(:port)/o/r.git`
 * or scp-like `git@host:o/r.git`; null for anything else (a path, a file:// URL).
 */
export function parseRemoteUrl(url: string): RemoteLocation | null {
  const trimmed = url.trim();
  const scp = trimmed.match(/^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/);
  if (scp && !trimmed.includes('://')) {
    return { host: (scp[1] ?? '').toLowerCase(), owner: scp[2] ?? '', repo: scp[3] ?? '' };
  }
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return null;
  }
  if (!['https:', 'http:', 'ssh:', 'git:'].includes(parsed.protocol)) return null;
  const parts = parsed.pathname.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  return { host: parsed.hostname.toLowerCase(), owner: parts[0], repo: parts[1].replace(/\.git$/, '') };
}

/** The API base of a GitHub host: `GITHUB_API_URL` first, else api.github.com or `https://<host>/api/v3`. */
export function githubApiUrl(host: string, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.GITHUB_API_URL?.trim();
  if (fromEnv) return fromEnv.replace(/\/+$/, '');
  return host === 'github.com' ? 'https://api.github.com' : `https://${host}/api/v3`;
}

/**
 * The forge a push remote is on: GitHub when its host is github.com or `forge.host` (GitHub
 * Enterprise). Throws `forge_unsupported` naming the host and what is supported otherwise.
 */
export function forgeTarget(
  remote: { name: string; url: string },
  forgeHost: string | undefined,
  env: NodeJS.ProcessEnv,
  purpose: ForgePurpose = 'pull_requests',
): ForgeTarget {
  const at = parseRemoteUrl(remote.url);
  const hosts = ['github.com', ...(forgeHost ? [forgeHost.toLowerCase()] : [])];
  if (!at || !hosts.includes(at.host)) {
    throw new RalphError(
      'forge_unsupported',
      `${PURPOSE[purpose].needs} a GitHub remote, but ${remote.name} is ${remote.url}${at ? ` (host ${at.host})` : ''}: ` +
        `supported are github.com and a GitHub Enterprise host named in forge.host; ${PURPOSE[purpose].otherwise}`,
    );
  }
  return { ...at, platform: 'github', url: remote.url, apiUrl: githubApiUrl(at.host, env) };
}

/** Whether a remote URL is on GitHub (github.com or `forge.host`), for the per-milestone default. */
export function onGithub(url: string | undefined, forgeHost: string | undefined): boolean {
  const at = url === undefined ? null : parseRemoteUrl(url);
  return at !== null && (at.host === 'github.com' || at.host === forgeHost?.toLowerCase());
}

/** `ralph/<milestone-slug>`: the milestone's title in lower case, words joined by `-`. */
export function milestoneBranch(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `ralph/${slug || 'milestone'}`;
}

/** How often a pull request is polled while Ralph waits for its merge: once a minute. */
const POLL_MS = 60_000;

/**
 * The poll interval of a merge wait (the loop's and the parallel merge queue's):
 * `RALPH_FORGE_POLL_SECONDS` (tests shorten it), else a minute; never below 0.1 s.
 */
export function pullRequestPollMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env.RALPH_FORGE_POLL_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? Math.max(100, seconds * 1000) : POLL_MS;
}
