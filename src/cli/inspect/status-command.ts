import { ExitCode } from '../../errors.ts';
import { readStatus } from '../../human/read-status.ts';
import { humanStatus } from '../../human/status-lines.ts';
import type { CliIO } from '../io.ts';
import { parallelStatusLines, readParallelStatus } from './parallel-status.ts';

/** `ralph status [--json]`: reads state.json and the lock, so it works from any terminal. */
export function statusCommand(flags: { json?: boolean | undefined }, io: CliIO): number {
  const status = readStatus(io.cwd);
  if (status.stateError) throw status.stateError;
  const { state, running, crashed, stopRequested, holder } = status;
  const parallel = readParallelStatus(io.cwd);
  if (flags.json) {
    io.out(
      `${JSON.stringify({ running, crashed, stop_requested: stopRequested, pid: holder?.pid ?? null, state: state ?? null, parallel: parallel ?? null }, null, 2)}\n`,
    );
    return ExitCode.ok;
  }
  // A running parallel run is what this workspace is doing; an old one is shown after the loop.
  if (parallel?.running || (parallel && !state)) {
    io.out(`${parallelStatusLines(io.cwd, parallel).join('\n')}\n`);
    return ExitCode.ok;
  }
  if (!state) {
    io.out(`no Ralph run in ${io.cwd}\n`);
    return ExitCode.ok;
  }
  io.out(
    `${humanStatus(state, { running, crashed, stopRequested, pid: holder?.pid, now: Date.now(), lastEventAt: status.lastEventAt }).join('\n')}\n`,
  );
  return ExitCode.ok;
}
