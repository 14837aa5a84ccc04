import { RalphError, UnfinishedRunError } from '../../errors.ts';
import { moveFile } from '../../state/io/file-writes.ts';
import { isUnfinished, type LoopState, readLoopState } from '../../state/loop-state.ts';
import type { RalphPaths } from '../../state/paths.ts';
import type { StartMode } from '../context/run-options.ts';

/**
 * Whether a session continues `previous` (`--resume` of a run that did not complete) or starts a
 * new run; an unfinished run is never replaced unless told `--resume` or `--fresh`.
 */
export function resumes(previous: LoopState | undefined, mode: StartMode): boolean {
  if (previous && isUnfinished(previous) && mode === 'auto')
    throw new UnfinishedRunError(previous.run_id, previous.current?.number ?? previous.iterations + 1);
  return mode === 'resume' && previous !== undefined && previous.status !== 'completed';
}

/**
 * The workspace's earlier run state (undefined if none). A damaged state.json stops the start,
 * except with `--fresh`, where it counts as none: `setAside` renames it to
 * `state.json.corrupt-<time>` (the run replaces it), otherwise it is left as it is (a dry run).
 */
export function readPreviousState(
  path: string,
  mode: StartMode,
  damaged: 'setAside' | 'leave',
): LoopState | undefined {
  try {
    return readLoopState(path);
  } catch (error) {
    if (mode !== 'fresh') throw error;
    if (damaged === 'setAside') moveFile(path, `${path}.corrupt-${Date.now()}`);
    return undefined;
  }
}

/** An earlier run on the same checklist that did not complete (seed 003), and where it stopped. */
export interface EarlierChecklistRun {
  /** The design document (`completion.checklist`). */
  checklist: string;
  /** Where it stopped, in words: `iteration 2 of 2, stopped: max_iterations`. */
  where: string;
}

/**
 * Checklist workflow (seed 003): the earlier run in the workspace on the same design document, if
 * it did not complete. A plain start (`mode: 'auto'`) must not go past it unasked. Undefined
 * without a checklist, without such a run, or with a damaged state file (the loop reports that).
 */
export function earlierChecklistRun(
  paths: RalphPaths,
  checklist: string | undefined,
): EarlierChecklistRun | undefined {
  if (!checklist) return undefined;
  let previous: LoopState | undefined;
  try {
    previous = readLoopState(paths.state);
  } catch {
    return undefined; // a corrupt state file is reported by the loop itself
  }
  if (!previous || previous.status === 'completed' || previous.checklist !== checklist) return undefined;
  const stopped = previous.stop_reason ? `, stopped: ${previous.stop_reason}` : '';
  return {
    checklist,
    where: `iteration ${previous.current?.number ?? previous.iterations} of ${previous.max_iterations}${stopped}`,
  };
}

/**
 * Refuses a plain start (`mode: 'auto'`) over an earlier run on the same checklist with
 * `resume_or_fresh`: the caller says `resume` (`--resume`) or `fresh` (`--fresh`). Touches nothing.
 */
export function refuseUnaskedChecklistRestart(
  paths: RalphPaths,
  checklist: string | undefined,
  mode: StartMode,
): void {
  if (mode !== 'auto') return;
  const earlier = earlierChecklistRun(paths, checklist);
  if (earlier)
    throw new RalphError(
      'resume_or_fresh',
      `an earlier run on ${earlier.checklist} exists (${earlier.where}); pass --resume to continue it or --fresh to start over`,
    );
}
