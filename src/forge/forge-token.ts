import { execFile } from 'node:child_process';
import { RalphError } from '../errors.ts';
import { findExecutable } from '../process/find-executable.ts';

/** A token for the forge's API and where it came from (never the token in a message). */
export interface ForgeToken {
  token: string;
  source: 'GITHUB_TOKEN' | 'GH_TOKEN' | 'gh auth token';
}

/** Runs `gh auth token --hostname <host>`; resolves to its output, or '' when it fails. */
export type GhTokenReader = (gh: string, host: string, env: NodeJS.ProcessEnv) => Promise<string>;

const readGhToken: GhTokenReader = (gh, host, env) =>
  new Promise((resolve) => {
    execFile(
      gh,
      ['auth', 'token', '--hostname', host],
      { env, timeout: 10_000, maxBuffer: 64 * 1024 },
      (error, stdout) => resolve(error ? '' : String(stdout).trim()),
    );
  });

/**
 * The token Ralph uses: `GITHUB_TOKEN`, else `GH_TOKEN`, else the `gh` CLI's stored login when `gh`
 * is on PATH. Throws `forge_no_token` saying how to give one.
 */
export async function forgeToken(
  host: string,
  env: NodeJS.ProcessEnv,
  workspace: string,
  readGh: GhTokenReader = readGhToken,
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
    `no GitHub token for ${host}: set GITHUB_TOKEN (or GH_TOKEN) to a token that can push to the repository and open pull requests, or log in with \`gh auth login --hostname ${host}\`; or set forge.pull_requests: off`,
  );
}
