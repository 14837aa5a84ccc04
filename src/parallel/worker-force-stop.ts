import { forceStopRun, recordedAgentGroup } from '../engine/context/force-signal.ts';
import { killGroupNow } from '../process/kill-group.ts';
import { type LoopState, readLoopState } from '../state/loop-state.ts';
import { ralphPaths } from '../state/paths.ts';

/** A worker process at work in its worktree's workspace. */
export interface RunningWorker {
  pid: number;
  dir: string;
}

/**
 * A forced parallel stop, synchronously: every worker's process group is SIGKILLed, then each
 * worker's run is stopped as a single run's forced stop stops it — its agent's group (a group of
 * its own, which the worker's death leaves running) and every process with its run's mark killed,
 * its state saved as interrupted, its lock dropped.
 */
export function forceStopWorkers(workers: Iterable<RunningWorker>, env: NodeJS.ProcessEnv): void {
  const list = [...workers];
  // The workers first: none can start another agent meanwhile.
  for (const w of list) killGroupNow(w.pid);
  for (const w of list) {
    const paths = ralphPaths(w.dir);
    const state = readState(paths.state);
    if (state) forceStopRun(paths, state.run_id, recordedAgentGroup(state), { pid: w.pid, env });
  }
}

function readState(path: string): LoopState | undefined {
  try {
    return readLoopState(path);
  } catch {
    // A damaged state: the worker's next start reports it (and sweeps what its run left).
    return undefined;
  }
}
