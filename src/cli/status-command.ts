import { existsSync } from 'node:fs';
import { ExitCode, RalphError } from '../errors.ts';
import { formatCost, formatDuration, formatNumber } from '../observe/format.ts';
import { writeJsonAtomicSync } from '../state/atomic-write.ts';
import { lockHolderAlive, readLock } from '../state/lock.ts';
import { readLoopState } from '../state/loop-state.ts';
import { ralphPaths } from '../state/paths.ts';
import type { CliIO } from './io.ts';

/** `ralph status [--json]`: reads state.json and the lock, so it works from any terminal. */
export function statusCommand(flags: { json?: boolean | undefined }, io: CliIO): number {
  const paths = ralphPaths(io.cwd);
  const state = readLoopState(paths.state);
  const lock = readLock(paths.lock);
  const running = lock !== undefined && lockHolderAlive(lock);
  const crashed = !running && state?.status === 'running';
  const stopRequested = existsSync(paths.stopRequest);
  if (flags.json) {
    io.out(
      `${JSON.stringify({ running, crashed, stop_requested: stopRequested, pid: running ? lock?.pid : null, state: state ?? null }, null, 2)}\n`,
    );
    return ExitCode.ok;
  }
  if (!state) {
    io.out(`no Ralph run in ${io.cwd}\n`);
    return ExitCode.ok;
  }
  const parked = state.parked && state.parked.until > Date.now() ? state.parked : null;
  const what = running
    ? `running (pid ${lock?.pid})${parked ? `, parked until ${new Date(parked.until).toISOString()} (${parked.message})` : ''}${stopRequested ? ', stop requested' : ''}`
    : crashed
      ? `not running — the loop (pid ${state.pid}) died mid-run; continue with \`ralph run --resume\` or start over with --fresh`
      : `${state.status}${state.stop_reason ? ` (${state.stop_reason}: ${state.stop_message})` : ''}`;
  const lines = [
    `run ${state.run_id}: ${what}`,
    `  backend ${state.backend} · iterations ${state.iterations}/${state.max_iterations}` +
      (state.current
        ? ` · iteration ${state.current.number} in progress since ${state.current.started_at}`
        : ''),
    `  elapsed ${formatDuration(state.elapsed_ms)} · tokens ${formatNumber(state.tokens.total)} · cost ${formatCost(state.cost_usd)} · consecutive failures ${state.consecutive_failures}`,
    `  log ${state.log_file}`,
  ];
  io.out(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}

/** `ralph stop [--now]`: asks the running loop to stop at the next iteration boundary (or at once). */
export function stopCommand(flags: { now?: boolean | undefined }, io: CliIO): number {
  const paths = ralphPaths(io.cwd);
  const lock = readLock(paths.lock);
  if (!lock || !lockHolderAlive(lock)) {
    throw new RalphError('not_running', `no Ralph loop is running in ${io.cwd}`);
  }
  writeJsonAtomicSync(paths.stopRequest, {
    now: Boolean(flags.now),
    requested_at: new Date().toISOString(),
    by_pid: process.pid,
  });
  io.out(
    flags.now
      ? `asked the loop (pid ${lock.pid}) to stop now: its agent will be killed and state saved\n`
      : `asked the loop (pid ${lock.pid}) to stop after the current iteration (use --now to kill the agent)\n`,
  );
  return ExitCode.ok;
}
