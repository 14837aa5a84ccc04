import { lstatSync, readlinkSync, statSync } from 'node:fs';

/** Exit codes of the `ralph` CLI (DESIGN.md §1). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  limit: 2,
  interrupted: 130,
} as const;
/** One of the {@link ExitCode} values: 0, 1, 2 or 130. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Every `RalphError.code`, one per kind of failure (a program can switch on it; the message is for
 * people). Synonyms were merged: `not_a_repo` is `not_a_git_repo`, `file_lock_failed` is
 * `lock_failed`, `file_locked` is `lock_held`, `agent_missing` is `backend_unavailable`,
 * `config_missing` is `config_unreadable`, `prompt_missing` is `prompt_unreadable`.
 */
export const RALPH_ERROR_CODES = [
  // Arguments, config and prompt
  'usage',
  'config_invalid',
  'config_unreadable',
  'unknown_preset',
  'init_exists',
  'prompt_unreadable',
  'backend_unavailable',
  'agent_failed',
  // The workspace and its loop
  'lock_held',
  'lock_failed',
  'unfinished_run',
  'resume_or_fresh',
  'nothing_to_resume',
  'state_corrupt',
  'fs_error',
  'not_running',
  'interrupted',
  'cancelled',
  'preflight',
  'unsupported_platform',
  // Git and worktrees
  'git_missing',
  'git_failed',
  'git_state',
  'git_commit_message',
  'git_push_failed',
  /** A ref name or commit identity Ralph would send holds a secret: refused, never sent. */
  'git_secret',
  'not_a_git_repo',
  'dirty_tree',
  'wrong_branch',
  'no_worktree',
  'worktree_missing_file',
  'parallel_no_tasks',
  'rescue_not_found',
  // The agent's tools and the human in the loop
  'no_events_file',
  'tasks_unreadable',
  'task_invalid',
  'task_not_found',
  'memories_unreadable',
  'memory_invalid',
  'memory_not_found',
  'memory_duplicate',
  'skill_not_found',
  'no_question',
  'human_only',
  // Inspecting runs
  'no_run',
  'ambiguous_run',
  'no_iteration',
  'no_log',
  // Fleet
  'fleet_deps_missing',
  'fleet_no_redis',
  'fleet_redis_unreachable',
  'fleet_fence_lost',
  'fleet_job_invalid',
  'fleet_run_exists',
  'fleet_run_unknown',
  'fleet_clone_failed',
  'fleet_fetch_failed',
  'fleet_branch_missing',
  'fleet_checkpoint_commit_missing',
  // Pull requests on GitHub (forge)
  'forge_unsupported',
  'forge_no_token',
  'forge_denied',
  /** GitHub's rate limit is used up (a 429, or a 403 that says so): not a token problem. */
  'forge_rate_limited',
  'forge_failed',
  'forge_secret',
] as const;

/** The stable code of a {@link RalphError}: one of {@link RALPH_ERROR_CODES}. */
export type RalphErrorCode = (typeof RALPH_ERROR_CODES)[number];

/**
 * Base class of every error Ralph reports to a user: a stable `code`, the exit code the CLI
 * maps it to, and a message that says what to do next.
 */
export class RalphError extends Error {
  readonly code: RalphErrorCode;
  readonly exitCode: ExitCodeValue;
  constructor(
    code: RalphErrorCode,
    message: string,
    options: { exitCode?: ExitCodeValue; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RalphError';
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.failure;
  }
}

/** One problem found in a config file, located as `file:line:col`. */
export interface ConfigIssue {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

/**
 * An invalid config (`config_invalid`): a key unknown or misspelled, a wrong value, hats that
 * cannot route. `issues` locates each problem as `file:line:col`; the message lists them all.
 */
export class ConfigError extends RalphError {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super('config_invalid', issues.map(formatConfigIssue).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export function formatConfigIssue(issue: ConfigIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.col}` : issue.file;
  const at = issue.path ? ` ${issue.path}:` : '';
  return `${where}:${at} ${issue.message}`;
}

/** Wrong arguments or input (`usage`): an empty message, flags that exclude each other; the message says what to pass. */
export class UsageError extends RalphError {
  constructor(message: string) {
    super('usage', message);
    this.name = 'UsageError';
  }
}

/** Another loop runs in this workspace (`lock_held`): `pid` is its process; one loop per workspace. */
export class LockHeldError extends RalphError {
  readonly pid: number;
  constructor(pid: number, host: string, lockFile: string) {
    super(
      'lock_held',
      `another ralph loop is running in this workspace (pid ${pid} on ${host}); ` +
        `wait for it, or stop it with \`ralph stop\` (lock: ${lockFile})`,
    );
    this.name = 'LockHeldError';
    this.pid = pid;
  }
}

/**
 * A run was started with `mode: 'auto'` over an unfinished one (`unfinished_run`): Ralph never
 * replaces it unasked; start with `mode: 'resume'` (`--resume`) or `mode: 'fresh'` (`--fresh`).
 */
export class UnfinishedRunError extends RalphError {
  constructor(runId: string, iteration: number) {
    super(
      'unfinished_run',
      `an unfinished run (${runId}, interrupted in iteration ${iteration}) exists in this workspace; ` +
        'pass --resume to continue it or --fresh to start over',
    );
    this.name = 'UnfinishedRunError';
  }
}

/** File-system failures a user can fix, by errno code: the system's words for it and what to do. */
const FS_ERRNOS: Record<string, { words: string; fix: string }> = {
  ENOSPC: { words: 'no space left on device', fix: 'free some space' },
  EDQUOT: { words: 'disk quota exceeded', fix: 'free some space or raise the quota' },
  EACCES: { words: 'permission denied', fix: 'make it writable for you (chmod u+w)' },
  EPERM: { words: 'operation not permitted', fix: 'make it writable for you (chmod u+w)' },
  EROFS: { words: 'read-only file system', fix: 'remount it read-write, or run Ralph where it can write' },
  ENOENT: {
    words: 'no such file or directory',
    fix: 'a directory on the path was removed: restore it (Ralph remakes its own under .ralph/ when it starts)',
  },
  ENOTDIR: {
    words: 'not a directory',
    fix: 'a part of the path is a file, not a directory: move that file away',
  },
  EISDIR: { words: 'is a directory', fix: 'a directory is where the file should be: move it away' },
  EIO: { words: 'input/output error', fix: 'the disk is failing or gone: check it (dmesg)' },
  EFBIG: { words: 'file too large', fix: 'move the file away or raise the file size limit (ulimit -f)' },
  ENAMETOOLONG: { words: 'file name too long', fix: 'use a workspace with a shorter path' },
  ELOOP: { words: 'too many levels of symbolic links', fix: 'fix the symbolic link on the path' },
  EMFILE: { words: 'too many open files', fix: 'raise the limit (ulimit -n)' },
  ENFILE: { words: 'too many open files in system', fix: 'close some programs or raise the system limit' },
};

/** An errno code in the system's words with the code, e.g. `no space left on device (ENOSPC)`. */
export function errnoInWords(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const known = code === undefined ? undefined : FS_ERRNOS[code];
  return known ? `${known.words} (${code})` : undefined;
}

/** Calls that only read: the message says "cannot read" for these, "cannot write" otherwise. */
const READ_CALLS = new Set(['read', 'scandir', 'stat', 'lstat', 'access', 'readlink', 'opendir']);

/**
 * A file-system failure a user can fix: the path, the errno in words, what to do, and `next`, the
 * command that continues afterwards. `cause` is the errno exception.
 */
export class FileSystemError extends RalphError {
  readonly path: string;
  readonly errno: string;
  readonly next: string | undefined;
  constructor(cause: NodeJS.ErrnoException, path: string, next: string | undefined) {
    const code = cause.code ?? '';
    const verb = READ_CALLS.has(cause.syscall ?? '') ? 'read' : 'write';
    super(
      'fs_error',
      `cannot ${verb} ${path}: ${errnoInWords(cause)}: ${FS_ERRNOS[code]?.fix}${next ? `, ${next}` : ''}`,
      { cause },
    );
    this.name = 'FileSystemError';
    this.path = path;
    this.errno = code;
    this.next = next;
  }
}

/**
 * The one conversion of file-system failures (ENOSPC, EROFS, EACCES, ENOENT, …) into a RalphError
 * naming the file, the errno in words and what to do; undefined for anything else. `path` names the
 * file when the error does not (a write to an open descriptor) or names a temp file; `next` adds
 * the command that continues afterwards to an error that does not say it yet.
 */
export function fileSystemError(
  error: unknown,
  options: { path?: string; next?: string } = {},
): FileSystemError | undefined {
  if (error instanceof FileSystemError) {
    if (error.next !== undefined || options.next === undefined) return error;
    return new FileSystemError(error.cause as NodeJS.ErrnoException, error.path, options.next);
  }
  const e = error as NodeJS.ErrnoException | undefined;
  if (e?.code === undefined || !(e.code in FS_ERRNOS)) return undefined;
  const path = options.path ?? e.path ?? '(a file)';
  return new FileSystemError(e, path, options.next);
}

/**
 * An outside service's answer that is not the JSON asked for (a proxy's login page, a web root):
 * where it came from, the status and content type, and the first bytes of the body, on one line.
 */
export function notJsonAnswer(
  where: string,
  status: number,
  contentType: string | null,
  body: string,
): string {
  const start = body.trim().replace(/\s+/g, ' ');
  const shown = start.length > 80 ? `${start.slice(0, 80)}…` : start;
  const what = shown ? `a body starting ${JSON.stringify(shown)}` : 'an empty body';
  return `${where} answered HTTP ${status} (${contentType || 'no content type'}) with ${what}, not JSON`;
}

/** `a symbolic link to a file that does not exist (TARGET)` when `path` is one, else undefined. */
export function linkToNowhere(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    statSync(path);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  try {
    return `a symbolic link to a file that does not exist (${readlinkSync(path)})`;
  } catch {
    return undefined;
  }
}

/**
 * Why a file given by path could not be read, in words: a symbolic link to nowhere (with its
 * target), else the errno in words (`too many levels of symbolic links (ELOOP)`), else the message.
 */
export function whyUnreadable(path: string, error: unknown): string {
  return linkToNowhere(path) ?? errnoInWords(error) ?? (error as Error)?.message ?? String(error);
}
