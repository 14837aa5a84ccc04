import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ExitCode, RalphError } from '../../errors.ts';
import { followFile, readTextSince } from '../../state/io/jsonl.ts';
import { readLoopState } from '../../state/loop-state.ts';
import { ralphPaths } from '../../state/paths.ts';
import { workspaceLockHolder } from '../../state/workspace-lock.ts';
import type { CliIO } from '../io.ts';

/** Run ids a log file holds: its `# ralph run <id>` headers (one per start or resume). */
function runIdsIn(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^# ralph run (\S+)/gm)].map((m) => m[1] as string);
}

/**
 * The log file of a run: no RUN → the run in `.ralph/state.json` (else the newest log); RUN → a run
 * id or a unique prefix of one, or a log file name (`2026-11-24_001[.log]`).
 */
export function findRunLog(workspace: string, run: string | undefined): string {
  const paths = ralphPaths(workspace);
  const logs = existsSync(paths.logs)
    ? readdirSync(paths.logs)
        .filter((n) => n.endsWith('.log'))
        .sort()
        .map((n) => join(paths.logs, n))
    : [];
  const none = `no run log in ${relative(workspace, paths.logs) || paths.logs}: start a loop with \`ralph run\``;
  if (run === undefined) {
    let current: string | undefined;
    try {
      current = readLoopState(paths.state)?.log_file;
    } catch {
      current = undefined; // a damaged state file still leaves the logs readable
    }
    if (current && existsSync(join(workspace, current))) return join(workspace, current);
    const newest = logs.at(-1);
    if (!newest) throw new RalphError('no_log', none);
    return newest;
  }
  const byName = logs.find((f) => f.endsWith(`/${run}`) || f.endsWith(`/${run}.log`));
  if (byName) return byName;
  const matches = logs.filter((f) => runIdsIn(f).some((id) => id.startsWith(run)));
  if (matches.length === 1) return matches[0] as string;
  const ids = [...new Set(logs.flatMap(runIdsIn))];
  if (matches.length === 0)
    throw new RalphError(
      'no_log',
      logs.length === 0
        ? none
        : `no run "${run}" in ${relative(workspace, paths.logs)}; runs: ${ids.join(', ')}`,
    );
  throw new RalphError(
    'ambiguous_run',
    `"${run}" matches several runs (${ids.filter((id) => id.startsWith(run)).join(', ')}): give more of the run id`,
  );
}

/**
 * `ralph logs [RUN] [-f]`: prints a run's human log. `-f` keeps printing what is appended until
 * Ctrl-C, or until no loop holds the workspace any more and the log has stopped growing.
 */
export async function logsCommand(
  run: string | undefined,
  flags: { follow?: boolean | undefined },
  io: CliIO,
  signal?: AbortSignal,
): Promise<number> {
  const file = findRunLog(io.cwd, run);
  const { text, nextOffset } = readTextSince(file, 0);
  io.out(text);
  if (!flags.follow) return ExitCode.ok;
  const paths = ralphPaths(io.cwd);
  // The loop writes its last lines before it lets go of the lock: the follow reads once more after.
  const done = () => workspaceLockHolder(paths, io.env) === undefined;
  for await (const more of followFile(file, { from: nextOffset, signal, intervalMs: 200, done }))
    io.out(more);
  return ExitCode.ok;
}
