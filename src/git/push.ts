import { setTimeout as realSleep } from 'node:timers/promises';
import { RalphError } from '../errors.ts';
import { gitFailure, runGit, runGitRaw, stderrTail } from './run-git.ts';

export interface PushOptions {
  remote: string;
  /** Remote branch to push HEAD to (`HEAD:refs/heads/<branch>`). */
  branch: string;
  attempts: number;
  delayMs: number;
  /** The run's redaction: a branch name it changes holds a secret and is never pushed. */
  redact: (text: string) => string;
  /** Injected for tests; defaults to a real timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Called after each failed attempt with its number (from 1) and the error. */
  onAttempt?: (attempt: number, error: RalphError) => void;
  /** Kill a push that hangs (e.g. an unreachable host) after this long; default 5 minutes. */
  timeoutMs?: number;
}

async function hasUpstream(root: string): Promise<boolean> {
  const branch = await runGitRaw(root, ['symbolic-ref', '-q', '--short', 'HEAD']);
  if (branch.exitCode !== 0) return true; // detached: there is no local branch to track anything
  const remote = await runGitRaw(root, ['config', '--get', `branch.${branch.stdout.trim()}.remote`]);
  return remote.exitCode === 0 && remote.stdout.trim().length > 0;
}

/**
 * Pushes HEAD to `<remote>/<branch>`, retrying `attempts` times `delayMs` apart; sets the
 * upstream when the current branch has none. Never rewrites anything: on failure the commits
 * stay local and the error says so.
 */
export async function pushWithRetry(root: string, options: PushOptions): Promise<void> {
  const attempts = Number.isFinite(options.attempts) ? Math.max(1, Math.floor(options.attempts)) : 1;
  const sleep = options.sleep ?? realSleep;
  const timeoutMs = options.timeoutMs ?? 300_000;
  refuseSecretBranch(options.branch, options.redact);
  await refuseSecretCommits(root, options.remote, options.redact, timeoutMs);
  // Exactly what was checked goes out: the one refspec, no tags `push.followTags` would add.
  const args = ['push'];
  if (!(await hasUpstream(root))) args.push('-u');
  args.push(options.remote, `HEAD:refs/heads/${options.branch}`, '--no-follow-tags');
  let lastDetail = '';
  let lastError: RalphError | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const result = await runGitRaw(root, args, { timeoutMs });
    if (result.exitCode === 0 && !result.timedOut) return;
    const tail = stderrTail(result.stderr);
    lastDetail = result.timedOut ? `timed out after ${timeoutMs} ms (${tail})` : tail;
    lastError = gitFailure(root, args, result, 'check the remote URL, network and permissions');
    options.onAttempt?.(attempt, lastError);
    if (attempt < attempts) await sleep(options.delayMs);
  }
  throw new RalphError(
    'git_push_failed',
    `git push to ${options.remote} failed after ${attempts} attempts: ${lastDetail}; ` +
      'your commits are kept locally — fix the remote and run `git push`',
    { cause: lastError },
  );
}

/**
 * A ref name is sent as it is (Ralph cannot redact a name it did not choose): one holding a secret
 * is refused, the secret redacted in the message.
 */
export function refuseSecretBranch(branch: string, redact: (text: string) => string): void {
  const shown = redact(branch);
  if (shown === branch) return;
  throw new RalphError(
    'git_secret',
    `refusing to push: the branch name contains a secret (${shown}); rename it (\`git branch -m <new-name>\`), then push or \`ralph run --resume\``,
  );
}

/** The newest commits a push scans: an agent's commits are the newest; older ones are the user's history. */
const SCANNED_COMMITS = 1000;

/**
 * Commits go out with the identities and messages they were made with (an agent's own `git commit`
 * too): a commit the remote does not have yet whose author, committer or message holds a secret
 * refuses the push. What the remote has is asked of the remote (`git ls-remote`), never read from
 * `refs/remotes/*`, which the agent can write. Only the newest {@link SCANNED_COMMITS} unpushed
 * commits are read.
 */
export async function refuseSecretCommits(
  root: string,
  remote: string,
  redact: (text: string) => string,
  timeoutMs = 300_000,
): Promise<void> {
  const head = await runGitRaw(root, ['rev-parse', '-q', '--verify', 'HEAD']);
  if (head.exitCode !== 0) return;
  const known = await remoteTipsPresent(root, remote, timeoutMs);
  const log = await runGit(root, [
    'log',
    `--max-count=${SCANNED_COMMITS}`,
    '--format=%h%x00%an <%ae>%x00%cn <%ce>%x00%B%x1e',
    'HEAD',
    ...(known.length > 0 ? ['--not', ...known] : []),
  ]);
  for (const entry of log.split('\x1e')) {
    const [hash, ...parts] = entry.replace(/^\n/, '').split('\0');
    if (hash === undefined || parts.length !== 3) continue;
    const found = ['author', 'committer', 'message'].filter((_, i) => redact(parts[i] ?? '') !== parts[i]);
    if (found.length === 0) continue;
    throw new RalphError(
      'git_secret',
      `refusing to push: commit ${hash} holds a secret in its ${found.join(' and ')} (not shown); rewrite it (\`git commit --amend\` or \`git rebase -i\`), then push or \`ralph run --resume\``,
    );
  }
}

/**
 * The remote's branch and tag tips as the remote reports them, those present here: what the push
 * need not scan. An unreachable remote reports none (everything is scanned; the push fails anyway).
 */
async function remoteTipsPresent(root: string, remote: string, timeoutMs: number): Promise<string[]> {
  const listed = await runGitRaw(root, ['ls-remote', '--heads', '--tags', remote], { timeoutMs });
  if (listed.exitCode !== 0 || listed.timedOut) return [];
  const tips = [...new Set(listed.stdout.split('\n').map((l) => l.split('\t')[0]?.trim() ?? ''))].filter(
    (h) => /^[0-9a-f]{40,64}$/.test(h),
  );
  if (tips.length === 0) return [];
  const check = await runGitRaw(root, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    input: `${tips.join('\n')}\n`,
  });
  return check.stdout
    .split('\n')
    .map((l) => l.split(' '))
    .filter(([, type]) => type === 'commit')
    .map(([hash]) => hash as string);
}

/** Whether `remote` is configured in the repository (`git remote get-url`). */
export async function hasRemote(root: string, remote: string): Promise<boolean> {
  const r = await runGitRaw(root, ['remote', 'get-url', remote]);
  return r.exitCode === 0 && r.stdout.trim().length > 0;
}
