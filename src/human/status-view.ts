import type { LoopState as EngineState } from '../state/loop-state.ts';

// What the package root promises about a loop's state.json: a deeply read-only view of the fields
// a status reader shows. The engine's own LoopState (its parts, internal bookkeeping) stays internal.

/** Read-only all the way down: a view cannot change what it shows. */
type Frozen<T> = T extends readonly (infer U)[]
  ? readonly Frozen<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T;

/** The fields of state.json a status reader relies on (`ralph status`, the dashboard, `ralph worktrees list`). */
type StatusField =
  | 'version'
  | 'run_id'
  | 'status'
  | 'started_at'
  | 'updated_at'
  | 'pid'
  | 'workspace'
  | 'backend'
  | 'max_iterations'
  | 'iterations'
  | 'current'
  | 'consecutive_failures'
  | 'cost_usd'
  | 'tokens'
  | 'elapsed_ms'
  | 'events_file'
  | 'log_file'
  | 'stop_reason'
  | 'stop_message'
  | 'exit_code'
  | 'idle'
  | 'idle_next_scan_at'
  | 'parked'
  | 'paused'
  | 'stop_requested'
  | 'waiting_for'
  | 'guidance'
  | 'forge'
  | 'cost_by_model';

/**
 * A loop's `.ralph/state.json` as `readStatus` returns it, deeply read-only: where the run stands
 * (status, iteration in progress, stop), what it used (iterations, tokens, cost, runtime) and what it
 * waits for (a park, a human, a merge). The file holds more, the engine's bookkeeping, which is not
 * part of the API.
 */
export type LoopStatusView = Frozen<Pick<EngineState, StatusField>>;

/** @deprecated Use `LoopStatusView`: the read-only view of state.json (the engine's state type is no longer exported). */
export type LoopState = LoopStatusView;
