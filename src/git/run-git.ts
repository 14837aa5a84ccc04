import { RalphError } from '../errors.ts';
import { runCommand } from '../process/command-runner.ts';

/** Outcome of one `git -C <root> …` call that ran (whatever its exit code). */
export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface RunGitOptions {
  /** Written to git's stdin (e.g. a commit message for `commit -F -`). */
  input?: string;
  /** Kill git (its whole process group) after this long; the result then has `timedOut: true`. */
  timeoutMs?: number;
}

/** A git killed on its deadline gets this long after SIGTERM to remove its lock files. */
const GIT_KILL_GRACE_MS = 2000;

// These would point git at another repository than `-C <root>` (e.g. when run from a git hook).
const REPO_LOCATING_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

/**
 * Config that wins over anything in the repository (`-c` beats `.git/config` and its includes), so
 * what the agent writes into `.git/` never runs inside Ralph's own git calls: no hooks (an empty
 * location), no fsmonitor command, and an automatic gc runs in the foreground, never left running
 * after the call. The user's identity and signing settings are left alone.
 */
const HARDENED_CONFIG = ['core.hooksPath=/dev/null', 'core.fsmonitor=false', 'gc.autoDetach=false'];

/** Per subcommand: skip its hooks again, and never run an external diff or textconv program. */
const SUBCOMMAND_FLAGS = new Map<string, readonly string[]>([
  ['commit', ['--no-verify']],
  ['push', ['--no-verify']],
  ['merge', ['--no-verify']],
  ['diff', ['--no-ext-diff', '--no-textconv']],
  ['log', ['--no-ext-diff', '--no-textconv']],
  ['show', ['--no-ext-diff', '--no-textconv']],
]);
// `merge --abort`/`--quit`/`--continue` take no other option, not even --no-verify.
const MERGE_CONTROL = new Set(['--abort', '--quit', '--continue']);

/** The whole argument list of Ralph's `git -C <root> <args>`: the hardening before the call. */
export function gitArgs(root: string, args: readonly string[]): string[] {
  const [sub, ...rest] = args;
  const global = ['-C', root, '--no-pager', ...HARDENED_CONFIG.flatMap((c) => ['-c', c])];
  if (sub === undefined) return global;
  const control = sub === 'merge' && rest.some((a) => MERGE_CONTROL.has(a));
  const flags = control ? [] : (SUBCOMMAND_FLAGS.get(sub) ?? []);
  return [...global, sub, ...flags, ...rest];
}

/** The environment of Ralph's own git calls: the user's, minus what would redirect or subvert git. */
export function gitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of REPO_LOCATING_ENV) delete env[name];
  env.LC_ALL = 'C'; // stable, parseable messages
  env.GIT_TERMINAL_PROMPT = '0'; // a push fails instead of waiting for credentials forever
  env.GIT_OPTIONAL_LOCKS = '0'; // `status` must not take index.lock while the agent uses git
  env.GIT_NO_REPLACE_OBJECTS = '1'; // `git replace` must not hide a commit's real content from Ralph
  env.GIT_EDITOR = 'true'; // never an editor (core.editor in .git/config is a command too)
  return env;
}

/**
 * The telling part of git's stderr in one line: from the first `fatal:`/`error:` line on (git
 * prints advice before it), else the last few lines.
 */
export function stderrTail(stderr: string, maxLines = 5, maxChars = 600): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const first = lines.findIndex((l) => /^(fatal|error):/.test(l));
  const picked = first >= 0 ? lines.slice(first, first + maxLines) : lines.slice(-maxLines);
  const tail = picked.join(' ');
  if (tail.length === 0) return '(no output)';
  return tail.length > maxChars ? `${tail.slice(0, maxChars)}…` : tail;
}

/** Runs `git -C <root> <args>`; resolves with any exit code, throws only when git cannot run. */
export async function runGitRaw(
  root: string,
  args: string[],
  options: RunGitOptions = {},
): Promise<GitResult> {
  // git may exit before reading its stdin (EPIPE): that is its answer, not an error. Its output is
  // parsed whole, so none of it is cut; a timeout kills its group (a credential helper, ssh too).
  const result = await runCommand('git', gitArgs(root, args), {
    env: gitEnv(),
    input: options.input ?? '',
    timeoutMs: options.timeoutMs,
    killGraceMs: GIT_KILL_GRACE_MS,
    maxOutputChars: Number.POSITIVE_INFINITY,
  });
  const error = result.spawnError as NodeJS.ErrnoException | undefined;
  if (error?.code === 'ENOENT')
    throw new RalphError(
      'git_missing',
      'git is not installed or not on PATH; install git and run ralph again',
      {
        cause: error,
      },
    );
  if (error) throw error;
  return {
    exitCode: result.exitCode ?? -1,
    stdout: result.stdout,
    stderr: result.stderr,
    timedOut: result.killedBy === 'timeout',
  };
}

/** Builds the error for a git command that failed: which command, its stderr tail, what to do. */
export function gitFailure(root: string, args: string[], result: GitResult, hint?: string): RalphError {
  const how = result.timedOut ? 'timed out' : `failed (exit ${result.exitCode})`;
  const what =
    hint ?? hintFor(result.stderr) ?? 'check the repository and run the command yourself to see why';
  return new RalphError(
    'git_failed',
    `\`git ${args.join(' ')}\` ${how} in ${root}: ${stderrTail(result.stderr)}; ${what}`,
    {
      cause: result,
    },
  );
}

function hintFor(stderr: string): string | undefined {
  if (
    /Please tell me who you are|unable to auto-detect email address|auto-detection is disabled/.test(stderr)
  ) {
    return 'set an identity with `git config user.name …` and `git config user.email …`';
  }
  if (/index\.lock': File exists/.test(stderr)) {
    return 'another git process holds the index lock; wait for it, or remove .git/index.lock if none is running';
  }
  if (/not a git repository/.test(stderr)) return 'run ralph inside a git repository (or `git init` first)';
  return undefined;
}

/** Runs git and returns stdout; throws a `RalphError` naming the command when it exits non-zero. */
export async function runGit(root: string, args: string[], options: RunGitOptions = {}): Promise<string> {
  const result = await runGitRaw(root, args, options);
  if (result.exitCode !== 0) throw gitFailure(root, args, result);
  return result.stdout;
}
