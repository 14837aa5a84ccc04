import { type ForgeTarget, forgeTarget } from './forge-remote.ts';
import { type ForgeToken, forgeToken, type GhTokenReader } from './forge-token.ts';
import { createGithubClient } from './github-client.ts';
import { type RepoPulls, repoPulls } from './pull-requests.ts';

export { milestoneBranch, onGithub } from './forge-remote.ts';
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
  fetch?: typeof fetch;
  readGhToken?: GhTokenReader;
}

/**
 * The forge's front door: the platform of the remote (github.com or `forge.host`), a token
 * (GITHUB_TOKEN, GH_TOKEN, `gh auth token`), and a repository the token can push to. Throws a
 * RalphError (`forge_unsupported`, `forge_no_token`, `forge_denied`, `forge_failed`) saying what to do.
 */
export async function openForge(o: OpenForgeOptions): Promise<ForgeSession> {
  const target = forgeTarget(o.remote, o.host, o.env);
  const token = await forgeToken(target.host, o.env, o.workspace, o.readGhToken);
  const client = createGithubClient({ apiUrl: target.apiUrl, token: token.token, fetch: o.fetch });
  const pulls = repoPulls(client, target.owner, target.repo);
  const { defaultBranch } = await pulls.checkPush();
  return { target, remote: o.remote.name, tokenSource: token.source, defaultBranch, pulls };
}
