import { supervise } from './supervisor.ts';

/** How a one-shot command runs: where, with what, for how long, and how much of its output is kept. */
export interface RunCommandOptions {
  /** Undefined: this process's directory. */
  cwd?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Written to its stdin, which is then closed; undefined gives it /dev/null. */
  input?: string | undefined;
  /** The whole group is killed at this deadline; the result then says `killedBy: 'timeout'`. */
  timeoutMs?: number | undefined;
  /** Aborting kills the whole group; the result then says `killedBy: 'abort'`. */
  signal?: AbortSignal | undefined;
  /** Between SIGTERM and SIGKILL of a kill (default 0: a probe has nothing to save). */
  killGraceMs?: number | undefined;
  /** Characters of each stream kept, its last part when it says more (default 64 Ki; Infinity: all). */
  maxOutputChars?: number | undefined;
}

/** What a one-shot command did. A non-zero exit is an answer here, never an exception. */
export interface CommandResult {
  /** Null when it was killed by a signal or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why Ralph killed its group, or null. */
  killedBy: 'timeout' | 'abort' | null;
  /** Set when it could not start at all (ENOENT: no such program; a missing cwd). */
  spawnError: Error | undefined;
  stdout: string;
  stderr: string;
  /** More output came than `maxOutputChars` keeps: the streams hold its last part. */
  truncated: boolean;
}

const TIMEOUT = 'command_timeout';

/**
 * The one runner of one-shot commands (git, notify.command, `gh auth token`, `--version` probes): it
 * runs in a process group of its own under the supervisor, so a deadline or an abort kills the
 * whole group (a grandchild holding a pipe open too), and whatever it leaves in its group when it
 * exits dies with it. Long-running agents and gate commands use the supervisor itself.
 */
export async function runCommand(
  command: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  const result = await supervise({
    command,
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: options.input ?? null,
    timeoutMs: options.timeoutMs,
    timeoutReason: TIMEOUT,
    signal: options.signal,
    killGraceMs: options.killGraceMs ?? 0,
    tailChars: options.maxOutputChars ?? 64 * 1024,
  });
  const killedBy = result.killedBy === null ? null : result.killedBy === TIMEOUT ? 'timeout' : 'abort';
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    killedBy,
    spawnError: result.spawnError,
    stdout: result.stdoutTail,
    stderr: result.stderrTail,
    truncated: result.truncated,
  };
}

/** True when the command started and exited 0 on its own. */
export function succeeded(result: CommandResult): boolean {
  return result.spawnError === undefined && result.killedBy === null && result.exitCode === 0;
}

/** Where and how long a short command (`<cli> --version`) may run. */
export interface CommandOutputOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The whole group is killed at this deadline and the command counts as failed. */
  timeoutMs: number;
  /** Characters of standard output kept (its last part when it says more); default 16 Ki. */
  maxChars?: number | undefined;
}

/**
 * Runs a short command that answers and exits (a CLI's `--version`) and resolves with its standard
 * output when it exited 0 in time; undefined when it could not start, failed or ran out of time.
 */
export async function commandOutput(
  command: string,
  args: readonly string[],
  options: CommandOutputOptions,
): Promise<string | undefined> {
  const result = await runCommand(command, args, {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    maxOutputChars: options.maxChars ?? 16 * 1024,
  });
  return succeeded(result) ? result.stdout : undefined;
}
