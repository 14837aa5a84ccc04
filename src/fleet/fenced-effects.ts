import { setTimeout as sleep } from 'node:timers/promises';
import { type SweepMarked, sweepMarkedProcesses } from '../process/marked-processes.ts';
import { pushFleetBranch, remoteFleetSha } from './fleet-git.ts';
import { ABORT_FENCE_LOST, type ActiveJob, fleetBranch } from './job-engine.ts';

// What only the lock holder of a run may do to the world outside Redis: push its branch, kill
// processes carrying its mark. Each first proves the lock is still its own (a fenced no-op write).

const proveOwner = (job: ActiveJob) => job.writeCheckpoint({ files: {}, run: {}, costDelta: 0 });

/**
 * The loop's sweep of processes carrying the run's mark, only while this worker owns the run: on
 * one machine a woken zombie's sweep would otherwise kill the new owner's agent (same run id).
 */
export function fencedSweep(job: ActiveJob): SweepMarked {
  return async (select, graceMs, options) => {
    if (job.signal.reason === ABORT_FENCE_LOST) return [];
    try {
      await proveOwner(job);
    } catch {
      return [];
    }
    return sweepMarkedProcesses(select, graceMs, options);
  };
}

/**
 * Pushes with a lease on what this worker last saw; a failed lease means someone without the
 * lock pushed (a zombie): if the fence still holds, the owner's branch wins over it.
 */
export async function pushWithLease(
  job: ActiveJob,
  ws: string,
  runId: string,
  expected: string | null,
): Promise<string> {
  let lease = expected;
  let detail = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    // A woken zombie learns here that the run is no longer its own, before it pushes anything.
    await proveOwner(job);
    const pushed = await pushFleetBranch(ws, runId, lease);
    if (pushed.ok) return pushed.sha;
    detail = pushed.detail;
    if (pushed.lease) {
      // Someone without the lock pushed; the fenced check above proves this worker holds it.
      lease = await remoteFleetSha(ws, runId);
    } else await sleep(1000);
  }
  throw new Error(`cannot push ${fleetBranch(runId)}: ${detail}`);
}
