import { RalphError } from '../errors.ts';
import { runCommand, succeeded } from '../process/command-runner.ts';
import { findExecutable } from '../process/find-executable.ts';
import { type ForgePurpose, type ForgeTarget, forgeTarget, PURPOSE } from './forge-remote.ts';
import { createGithubClient, type GithubClientOptions } from './github-client.ts';
import { type RepoIssues, repoIssues } from './issues.ts';
import { type RepoPulls, readRepo, repoPulls } from './pull-requests.ts';

export { milestoneBranch, onGithub, pullRequestPollMs } from './forge-remote.ts';
export type { Issue, IssueFilter, RepoIssues } from './issues.ts';
export { MAX_IMPORTED_ISSUES } from './issues.ts';
export type { PullRequest, RepoPulls } from './pull-requests.ts';

/** A checked connection to the forge of a push remote: where it is, and its pull requests. */
export interface ForgeSession {
  target: ForgeTarget;
  /** The remote's name (`git.remote`). */
  remote: string;
  tokenSource: ForgeToken['source'];
  /** The repository's default branch on the forge. */
  defaultBranch: string;
  pulls: RepoPulls;
}

export interface OpenForgeOptions {
  remote: { name: string; url: string };
  /** `forge.host`: a GitHub Enterprise host. */
  host: string | undefined;
  env: NodeJS.ProcessEnv;
  workspace: string;
  /** The run's redaction: every string the forge client sends goes through it. */
  redact: (text: string) => string;
  fetch?: typeof fetch;
  readGhToken?: GhTokenReader;
  /** The run's wait for a spent hourly quota (the client's `waitForReset`); absent: none. */
  waitForReset?: GithubClientOptions['waitForReset'];
}

/**
 * The forge's front door: the platform of the remote (github.com or `forge.host`), a token
 * (GITHUB_TOKEN, GH_TOKEN, `gh auth token`), and a repository the token can push to. Throws a
 * RalphError (`forge_unsupported`, `forge_no_token`, `forge_denied`, `forge_failed`) saying what to do.
 */
export async function openForge(o: OpenForgeOptions): Promise<ForgeSession> {
  const target = forgeTarget(o.remote, o.host, o.env);
  const token = await forgeToken(target.host, o.env, o.workspace, o.readGhToken);
  const client = createGithubClient({
    apiUrl: target.apiUrl,
    token: token.token,
    redact: o.redact,
    fetch: o.fetch,
    waitForReset: o.waitForReset,
  });
  const pulls = repoPulls(client, target.owner, target.repo);
  const { defaultBranch } = await pulls.checkPush();
  return { target, remote: o.remote.name, tokenSource: token.source, defaultBranch, pulls };
}

/** A checked connection to the issues of a remote's repository (the token can see it). */
export interface IssueForge {
  target: ForgeTarget;
  issues: RepoIssues;
}

/**
 * The forge's door for issues as tasks: the platform and token as {@link openForge} finds them,
 * and a repository the token can see (reading issues; closing them needs Issues write).
 */
export async function openIssueForge(o: OpenForgeOptions): Promise<IssueForge> {
  const target = forgeTarget(o.remote, o.host, o.env, 'issues');
  const token = await forgeToken(target.host, o.env, o.workspace, o.readGhToken, 'issues');
  const client = createGithubClient({
    apiUrl: target.apiUrl,
    token: token.token,
    redact: o.redact,
    fetch: o.fetch,
    waitForReset: o.waitForReset,
  });
  await readRepo(client, target.owner, target.repo);
  return { target, issues: repoIssues(client, target.owner, target.repo) };
}

/** A token for the forge's API and where it came from (never the token in a message). */
export interface ForgeToken {
  token: string;
  source: 'GITHUB_TOKEN' | 'GH_TOKEN' | 'gh auth token';
}

/** Runs `gh auth token --hostname <host>`; resolves to its output, or '' when it fails. */
export type GhTokenReader = (gh: string, host: string, env: NodeJS.ProcessEnv) => Promise<string>;

const readGhToken: GhTokenReader = async (gh, host, env) => {
  // More than 64 KiB is no token (execFile's maxBuffer before): an answer cut short is no answer.
  const result = await runCommand(gh, ['auth', 'token', '--hostname', host], {
    env,
    timeoutMs: 10_000,
    maxOutputChars: 64 * 1024,
  });
  return succeeded(result) && !result.truncated ? result.stdout.trim() : '';
};

/**
 * The token Ralph uses: `GITHUB_TOKEN`, else `GH_TOKEN`, else the `gh` CLI's stored login when `gh`
 * is on PATH. Throws `forge_no_token` saying how to give one.
 */
export async function forgeToken(
  host: string,
  env: NodeJS.ProcessEnv,
  workspace: string,
  readGh: GhTokenReader = readGhToken,
  purpose: ForgePurpose = 'pull_requests',
): Promise<ForgeToken> {
  for (const name of ['GITHUB_TOKEN', 'GH_TOKEN'] as const) {
    const value = env[name]?.trim();
    if (value) return { token: value, source: name };
  }
  const gh = findExecutable('gh', env.PATH, workspace);
  if (gh.found) {
    const token = await readGh(gh.path, host, env);
    if (token) return { token, source: 'gh auth token' };
  }
  throw new RalphError(
    'forge_no_token',
    `no GitHub token for ${host}: set GITHUB_TOKEN (or GH_TOKEN) to a token that can ${purpose === 'issues' ? "read and close the repository's issues" : 'push to the repository and open pull requests'}, or log in with \`gh auth login --hostname ${host}\`; ${purpose === 'issues' ? PURPOSE.issues.otherwise : 'or set forge.pull_requests: off'}`,
  );
}
