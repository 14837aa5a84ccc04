import type { RunStatus } from './fields.ts';
import type { RunStatusPart } from './shape.ts';

// The owner of the run's status and its stop (RunStatusPart): the loop, a human wait, a merge
// wait and a forced stop change them only through these.

/** The run's stop as the loop decides it: a stop reason, its message, the exit code. */
export interface RecordedStop {
  reason: string;
  message: string;
  exitCode: number;
}

/** The run's status now (running, paused, waiting_for_human …). */
export function setStatus(state: RunStatusPart, status: RunStatus): void {
  state.status = status;
}

/** The run ended (or was cut short) with this stop, in this status. */
export function recordStop(state: RunStatusPart, status: RunStatus, end: RecordedStop): void {
  state.status = status;
  state.stop_reason = end.reason;
  state.stop_message = end.message;
  state.exit_code = end.exitCode;
}

/** The stop an iteration decided, saved with its record so a crash before the run ended ends it on resume (null: none). */
export function holdStop(state: RunStatusPart, end: RecordedStop | null | undefined): void {
  state.pending_stop = end ? { reason: end.reason, message: end.message, exit_code: end.exitCode } : null;
}
