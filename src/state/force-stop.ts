import { restoreSwapped } from './crash-repair.ts';
import { recordStop } from './loop-state/run-status.ts';
import { LIVE_STATUSES, readLoopState, writeLoopState } from './loop-state.ts';
import type { RalphPaths } from './paths.ts';
import { dropOwnWorkspaceLock, ownsWorkspaceLock } from './workspace-lock.ts';

/** What a forced stop's state says. */
export const FORCED_STOP_MESSAGE = 'forced stop (a second signal); resume with `ralph run --resume`';

/** The process whose run a forced stop records: this one, or a parallel worker its coordinator killed. */
export interface RunOwner {
  pid: number;
  /** Where its user state directory (the lock's twin) is. */
  env: NodeJS.ProcessEnv;
}

/**
 * A forced stop (a second Ctrl-C) exits at once, but not as a crash: the run `owner` owns is
 * saved as interrupted (resumable; the iteration in progress re-runs) and its lock given back.
 * Synchronous, for a signal handler; anything it cannot do is left for the next start to repair.
 */
export function markForcedStop(
  paths: RalphPaths,
  runId: string,
  owner: RunOwner = { pid: process.pid, env: process.env },
): void {
  try {
    const state = readLoopState(paths.state);
    if (state && state.run_id === runId && state.pid === owner.pid && LIVE_STATUSES.includes(state.status)) {
      recordStop(state, 'interrupted', {
        reason: 'interrupted',
        message: FORCED_STOP_MESSAGE,
        exitCode: 130,
      });
      writeLoopState(paths.state, state);
    }
  } catch {
    // A damaged or unwritable state: the next start reports it.
  }
  // The twin says so when the agent deleted .ralph/loop.lock.
  if (ownsWorkspaceLock(paths, owner.env, owner.pid)) {
    // A gate was running from the protected content: the agent's versions go back before the exit.
    try {
      restoreSwapped(paths);
    } catch {
      // An unreadable record stays for the next start, which reports it.
    }
    dropOwnWorkspaceLock(paths, owner.env, owner.pid);
  }
}
