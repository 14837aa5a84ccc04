/** Exit codes of the `ralph` CLI (DESIGN.md §1). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  limit: 2,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Base class of every error Ralph reports to a user: a stable `code`, the exit code the CLI
 * maps it to, and a message that says what to do next.
 */
export class RalphError extends Error {
  readonly code: string;
  readonly exitCode: ExitCodeValue;
  constructor(code: string, message: string, options: { exitCode?: ExitCodeValue; cause?: unknown } = {}) {
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

export class UsageError extends RalphError {
  constructor(message: string) {
    super('usage', message);
    this.name = 'UsageError';
  }
}

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

/** File-system failures a user can fix (space, permissions, a read-only disk), by errno code. */
const FS_FIXES: Record<string, string> = {
  ENOSPC: 'no space left on the device: free some space',
  EDQUOT: 'the disk quota is exhausted: free some space',
  EACCES: 'permission denied: make it writable (chmod u+w)',
  EPERM: 'operation not permitted: make it writable (chmod u+w)',
  EROFS: 'the file system is read-only: run Ralph where it can write',
  EMFILE: 'too many open files: raise the limit (ulimit -n)',
  ENOTDIR: 'a part of the path is a file, not a directory: move that file away',
};

/**
 * A RalphError naming the file and what to do for a file-system failure (ENOSPC, EACCES, …), or
 * undefined for anything else. `next` is the command that continues afterwards.
 */
export function fileSystemError(
  error: unknown,
  next = 'then run `ralph run --resume`',
): RalphError | undefined {
  const e = error as NodeJS.ErrnoException | undefined;
  const fix = e?.code === undefined ? undefined : FS_FIXES[e.code];
  if (fix === undefined) return undefined;
  const where = e?.path ? `${e.path}: ` : '';
  return new RalphError('fs_error', `cannot write ${where}${fix}, ${next}`, { cause: error });
}
