import { RalphError } from '../errors.ts';
import { runGit, runGitRaw, stderrTail } from './run-git.ts';

/** The commit `ref` names, or null when there is none. */
export async function resolveCommit(root: string, ref: string): Promise<string | null> {
  const r = await runGitRaw(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/** Whether commit `a` is in `b`'s history (`git merge-base --is-ancestor`; a commit is its own ancestor). */
export async function isAncestor(root: string, a: string, b: string): Promise<boolean> {
  return (await runGitRaw(root, ['merge-base', '--is-ancestor', a, b])).exitCode === 0;
}

/** A remote's URL as configured (`remote.<name>.url`, before `url.<base>.insteadOf` rewrites it), or undefined. */
export async function configuredRemoteUrl(root: string, remote: string): Promise<string | undefined> {
  const r = await runGitRaw(root, ['config', '--get', `remote.${remote}.url`]);
  const url = r.stdout.trim();
  return r.exitCode === 0 && url ? url : undefined;
}

/**
 * Fetches `branch` of `remote` into `refs/remotes/<remote>/<branch>`; false when the remote has no
 * such branch. Throws `git_failed` on anything else.
 */
export async function fetchRemoteBranch(root: string, remote: string, branch: string): Promise<boolean> {
  const r = await runGitRaw(root, [
    'fetch',
    '--quiet',
    remote,
    `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`,
  ]);
  if (r.exitCode === 0) return true;
  if (/couldn't find remote ref/i.test(r.stderr)) return false;
  throw new RalphError('git_failed', `git fetch of ${remote}/${branch} failed: ${stderrTail(r.stderr)}`);
}

/**
 * Switches to `branch`: an existing one is checked out as it is (never reset), a new one is created
 * at `startPoint`. Uncommitted changes travel with the switch, as `git checkout` does.
 */
export async function switchBranch(
  root: string,
  branch: string,
  startPoint: string,
): Promise<'switched' | 'created'> {
  if ((await resolveCommit(root, `refs/heads/${branch}`)) !== null) {
    await runGit(root, ['checkout', '--quiet', branch]);
    return 'switched';
  }
  await runGit(root, ['checkout', '--quiet', '-b', branch, startPoint]);
  return 'created';
}
