import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { RalphError } from '../errors.ts';
import type { LockInfo } from '../state/io/lock.ts';
import { readOptional } from '../state/io/read-optional.ts';
import { type LoopState, readLoopState } from '../state/loop-state.ts';
import { ralphPaths } from '../state/paths.ts';
import { workspaceLockHolder } from '../state/workspace-lock.ts';
import { readInbox } from './control-files.ts';
import type { LoopStatusView } from './status-view.ts';

/** Where a workspace's loop stands, read from its files (works from any process, any terminal). */
export interface RunStatus {
  workspace: string;
  /** `.ralph/state.json`; undefined when there is no run yet, or it is damaged (`stateError`). */
  state: LoopStatusView | undefined;
  /** Why state.json could not be read (it is damaged): says what to do next. */
  stateError?: RalphError | undefined;
  /** A live process holds the workspace lock. */
  running: boolean;
  /** The live lock holder (its pid, host, run id), while running. */
  holder: LockInfo | undefined;
  /** The state says running but no live process holds the lock: the loop died (`--resume` continues). */
  crashed: boolean;
  /** A `ralph stop` the running loop has not acted on yet (still in the inbox, or taken but not reached). */
  stopRequested: boolean;
  /** When the run's events file last grew (epoch ms), if it has events. */
  lastEventAt: number | undefined;
}

/**
 * Where a workspace's loop stands, as `ralph status` reads it (the dashboard and `ralph worktrees
 * list` too): `.ralph/state.json`, the lock's live holder, a pending stop, the last event. Works from
 * any process while the loop runs. A damaged state.json is reported in `stateError`, not thrown.
 */
export function readStatus(workspace: string): RunStatus {
  const paths = ralphPaths(workspace);
  let state: LoopState | undefined;
  let stateError: RalphError | undefined;
  try {
    state = readLoopState(paths.state);
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    stateError = error;
  }
  // Its twin answers while the agent has deleted .ralph/loop.lock (the loop puts it back).
  const holder = workspaceLockHolder(paths);
  const running = holder !== undefined;
  return {
    workspace,
    state,
    ...(stateError ? { stateError } : {}),
    running,
    holder,
    crashed: !running && state?.status === 'running',
    stopRequested: running && stopPending(paths, state),
    lastEventAt: lastEventAt(workspace, state?.events_file),
  };
}

function stopPending(paths: ReturnType<typeof ralphPaths>, state: LoopState | undefined): boolean {
  if (state?.stop_requested) return true;
  return readInbox(paths.inbox, state?.control?.offset ?? 0).commands.some(
    (c) => (c.kind === 'stop' || c.kind === 'stop_now') && !state?.control?.consumed.includes(c.id),
  );
}

function lastEventAt(workspace: string, eventsFile: string | undefined): number | undefined {
  if (!eventsFile) return undefined;
  try {
    const st = statSync(isAbsolute(eventsFile) ? eventsFile : join(workspace, eventsFile));
    return st.size > 0 ? st.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}

/** The last `n` lines of the run's human log. */
export function logTail(workspace: string, state: LoopStatusView | undefined, n = 200): string {
  if (!state) return '';
  const text = readOptional(join(workspace, state.log_file), 'absent') ?? '';
  return text.split('\n').slice(-n).join('\n');
}
