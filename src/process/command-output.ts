import { supervise } from './supervisor.ts';

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
 * It runs in a process group of its own under the supervisor: on the deadline the whole group is
 * killed (a grandchild holding stdout open too), and whatever it leaves behind in its group when it
 * exits dies with it, so neither holds up the caller.
 */
export async function commandOutput(
  command: string,
  args: readonly string[],
  options: CommandOutputOptions,
): Promise<string | undefined> {
  const result = await supervise({
    command,
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: null,
    timeoutMs: options.timeoutMs,
    timeoutReason: 'command_timeout',
    // Nothing to save: a probe is killed at once (SIGTERM, then SIGKILL without a grace period).
    killGraceMs: 0,
    tailChars: options.maxChars ?? 16 * 1024,
  });
  const ok = result.spawnError === undefined && result.killedBy === null && result.exitCode === 0;
  return ok ? result.stdoutTail : undefined;
}
