import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeJsonAtomicSync } from './io/atomic-write.ts';
import { LIVE_STATUSES } from './loop-state/fields.ts';
import { inFlightFileOf, readInFlight, setCurrent } from './loop-state/in-flight.ts';
import type { LoopState } from './loop-state/shape.ts';
import { parseLoopState } from './loop-state/state-schema.ts';
import { ralphPaths } from './paths.ts';

// The state's types, its schema and its parser live beside this file; importers keep this path.
export type {
  CurrentIteration,
  ForgeState,
  HeldCommit,
  HeldQuestion,
  LadderRung,
  MetricNote,
  MetricProgress,
  MetricResult,
  MilestonePr,
  PendingEvent,
  PendingRollback,
  QueuedGuidance,
  RollbackTree,
  RunStatus,
} from './loop-state/fields.ts';
export { LIVE_STATUSES } from './loop-state/fields.ts';
export type { LoopState } from './loop-state/shape.ts';
export { parseLoopState } from './loop-state/state-schema.ts';

/** Reads `.ralph/state.json`; undefined when there is none, a `state_corrupt` RalphError when damaged. */
export function readLoopState(path: string): LoopState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return withInFlight(parseLoopState(text, path), path);
}

/**
 * The state with the iteration in flight (`runs/<run>/in-flight.json`) laid over it while that is
 * newer than the state's last save: a short iteration saves state.json only at its end.
 */
function withInFlight(state: LoopState, path: string): LoopState {
  const f = readInFlight(inFlightFileOf(dirname(path), state.run_id));
  if (!f || f.number !== (state.current?.number ?? state.iterations + 1) || f.at < state.updated_at)
    return state;
  const { at: _at, ...current } = f;
  setCurrent(state, current);
  return state;
}

/**
 * Saves the state atomically (stamping `updated_at`); `fsync: false` for bookkeeping between the
 * commit points. Returns the JSON text now in the file.
 */
export function writeLoopState(path: string, state: LoopState, options: { fsync?: boolean } = {}): string {
  state.updated_at = new Date().toISOString();
  return writeJsonAtomicSync(path, state, options);
}

/** A run is unfinished when it crashed mid-loop or was interrupted: a plain `ralph run` must not clobber it. */
export function isUnfinished(state: LoopState): boolean {
  return LIVE_STATUSES.includes(state.status) || state.status === 'interrupted';
}

/**
 * A workspace's loop state for a view (dashboard, status of a worker): undefined when there is
 * none or it is damaged — the loop itself, `ralph status` and `--resume` report the damage.
 */
export function loopStateOf(workspace: string): LoopState | undefined {
  try {
    return readLoopState(ralphPaths(workspace).state);
  } catch {
    return undefined;
  }
}
