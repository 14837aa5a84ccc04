import type { Reporter } from '../../observe/reporter.ts';
import { killGroupNow } from '../../process/kill-group.ts';
import { killMarkedNow } from '../../process/marked-processes.ts';
import { processInfo, sameProcessStart } from '../../process/pids.ts';
import { markForcedStop, type RunOwner } from '../../state/force-stop.ts';
import type { LoopState } from '../../state/loop-state.ts';
import type { RalphPaths } from '../../state/paths.ts';

/** What `RunLoopOptions.forceSignal` arms: what its abort does, and whether it came. */
export interface ForceStop {
  /** Tracks the agent that runs now (its `agent.spawned`), the one a forced stop kills. */
  readonly reporter: Reporter;
  /** True once the force signal was aborted: the state on disk is the forced stop's, nothing more is written. */
  forced(): boolean;
  dispose(): void;
}

/**
 * A forced stop (a second Ctrl-C, or an embedder's `forceSignal`): synchronously, in the abort,
 * the agent's process group and every process with the run's mark are killed without grace, the
 * state is saved as interrupted (the iteration in progress re-runs on --resume) and the workspace
 * lock given back, so the process may end right after.
 */
export function armForceStop(signal: AbortSignal | undefined, paths: RalphPaths, runId: string): ForceStop {
  let agentPid: number | undefined;
  let forced = false;
  const force = () => {
    forced = true;
    forceStopRun(paths, runId, agentPid);
  };
  if (signal?.aborted) force();
  else signal?.addEventListener('abort', force, { once: true });
  return {
    reporter: {
      onEvent: (event) => {
        if (event.type === 'agent.spawned') agentPid = event.pid;
      },
    },
    forced: () => forced,
    dispose: () => signal?.removeEventListener('abort', force),
  };
}

/**
 * What a forced stop does to one run, at once and synchronously: its agent's group and every process
 * with its mark SIGKILLed, its state saved as interrupted and its lock dropped (for `owner`: this
 * process, or a parallel worker its coordinator has just killed).
 */
export function forceStopRun(
  paths: RalphPaths,
  runId: string,
  agentPid: number | undefined,
  owner?: RunOwner,
): void {
  if (agentPid !== undefined) killGroupNow(agentPid);
  // Gates and whatever the agent detached carry the run's mark.
  killMarkedNow({ runId });
  markForcedStop(paths, runId, owner);
}

/** The recorded agent's group, unless its pid now belongs to someone else. */
export function recordedAgentGroup(state: LoopState): number | undefined {
  const pid = state.current?.agent_pid;
  // state.json is the agent's to rewrite: never every process (kill -1) nor Ralph's own group.
  if (!pid || pid <= 1 || pid === processInfo(process.pid)?.pgid) return undefined;
  const leader = processInfo(pid);
  const recorded = state.current?.agent_start_time;
  // A live leader with another start time is an unrelated process that reused the pid; one whose
  // start cannot be compared (recorded by another process table) is left alone too.
  if (leader && !leader.state.startsWith('Z') && recorded && sameProcessStart(recorded, pid) !== true)
    return undefined;
  return pid;
}
