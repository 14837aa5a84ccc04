import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RalphError } from '../errors.ts';
import { resolveCommit } from '../git/branches.ts';
import { commitAll } from '../git/commit.ts';
import { runGit, runGitRaw, stderrTail } from '../git/run-git.ts';
import { fleetBranch } from './job-engine.ts';

const REMOTE = 'origin';
const remoteRef = (branch: string) => `refs/remotes/${REMOTE}/${branch}`;

const revParse = resolveCommit;

/** Fetches `branch` into refs/remotes/origin/; false when the remote has no such branch. */
async function fetchBranch(ws: string, branch: string): Promise<boolean> {
  const r = await runGitRaw(ws, ['fetch', '--quiet', REMOTE, `+refs/heads/${branch}:${remoteRef(branch)}`]);
  if (r.exitCode === 0) return true;
  if (/couldn't find remote ref/i.test(r.stderr)) return false;
  throw new RalphError('fleet_fetch_failed', `git fetch of ${branch} failed: ${stderrTail(r.stderr)}`);
}

/**
 * Clones (or fetches) the run's repository into its own workspace and checks out
 * `ralph/fleet/<run-id>` at the checkpoint's commit, or at `branch` for a new run; everything
 * untracked (an earlier attempt's leftovers) is removed. Returns what the remote's fleet branch
 * points at, the lease of the next push.
 */
export async function prepareWorkspace(
  ws: string,
  spec: { repo: string; branch: string },
  runId: string,
  checkpointCommit: string | null,
): Promise<{ remoteSha: string | null }> {
  if (!existsSync(join(ws, '.git'))) {
    rmSync(ws, { recursive: true, force: true });
    mkdirSync(dirname(ws), { recursive: true });
    const r = await runGitRaw(dirname(ws), ['clone', '--quiet', '--no-checkout', spec.repo, ws]);
    if (r.exitCode !== 0)
      throw new RalphError(
        'fleet_clone_failed',
        `cannot clone ${spec.repo}: ${stderrTail(r.stderr)}; the repository must be reachable from every worker`,
      );
  } else {
    await runGit(ws, ['remote', 'set-url', REMOTE, spec.repo]);
  }
  const branch = fleetBranch(runId);
  if (!(await fetchBranch(ws, spec.branch)))
    throw new RalphError('fleet_branch_missing', `the repository ${spec.repo} has no branch ${spec.branch}`);
  const remoteSha = (await fetchBranch(ws, branch)) ? await revParse(ws, remoteRef(branch)) : null;
  const target = checkpointCommit ?? remoteRef(spec.branch);
  if ((await revParse(ws, target)) === null)
    throw new RalphError(
      'fleet_checkpoint_commit_missing',
      `the checkpoint's commit ${target} is not in ${spec.repo} (was ${branch} rewritten by hand?)`,
    );
  await runGit(ws, ['checkout', '--quiet', '--force', '-B', branch, target]);
  await runGit(ws, ['clean', '-ffdxq']);
  // Commits need an identity; a worker's global git config may have none.
  const email = await runGitRaw(ws, ['config', 'user.email']);
  if (email.stdout.trim() === '') {
    await runGit(ws, ['config', 'user.name', 'Ralph fleet']);
    await runGit(ws, ['config', 'user.email', 'ralph-fleet@localhost']);
  }
  return { remoteSha };
}

/** Commits what an iteration left uncommitted (Ralph's runtime files are git-ignored). */
export async function commitLeftovers(ws: string, runId: string, iteration: number): Promise<void> {
  await commitAll(ws, `ralph fleet: run ${runId}, iteration ${iteration}`, { exclude: [] });
}

type PushResult = { ok: true; sha: string } | { ok: false; lease: boolean; detail: string };

/**
 * Pushes HEAD to `ralph/fleet/<run-id>` only if the remote branch is still at `expected` (null:
 * must not exist), so a worker never overwrites a push it has not seen.
 */
export async function pushFleetBranch(
  ws: string,
  runId: string,
  expected: string | null,
): Promise<PushResult> {
  const head = await revParse(ws, 'HEAD');
  if (head === null) return { ok: false, lease: false, detail: 'no commit to push' };
  if (head === expected) return { ok: true, sha: head };
  const ref = `refs/heads/${fleetBranch(runId)}`;
  const r = await runGitRaw(
    ws,
    ['push', '--quiet', `--force-with-lease=${ref}:${expected ?? ''}`, REMOTE, `HEAD:${ref}`],
    {
      timeoutMs: 120_000,
    },
  );
  if (r.exitCode === 0 && !r.timedOut) return { ok: true, sha: head };
  return { ok: false, lease: /stale info|rejected/i.test(r.stderr), detail: stderrTail(r.stderr) };
}

/** What the remote's fleet branch points at now (after a failed lease). */
export async function remoteFleetSha(ws: string, runId: string): Promise<string | null> {
  const branch = fleetBranch(runId);
  return (await fetchBranch(ws, branch)) ? revParse(ws, remoteRef(branch)) : null;
}
