import { closeSync, constants, fstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMakingDir } from '../io/atomic-write.ts';
import { durableWrite, writeAll } from '../io/write-faults.ts';
import type { CurrentIteration } from './fields.ts';
import type { InFlightPart } from './shape.ts';

/**
 * `.ralph/runs/<run-id>/in-flight.json`: the iteration whose agent is running, saved the moment it
 * starts. A rename of state.json over itself costs about an fsync on ext4 (the rename starts the
 * new file's writeback), so a short iteration saves state.json once, at its end; this small file,
 * rewritten in place, carries the in-flight fact until then. `readLoopState` lays it over
 * state.json while it is newer, so `ralph status`, the dashboard and `--resume` (which kills the
 * dead run's agent group by this pid) read one state.
 */
export interface InFlight extends CurrentIteration {
  /** When it was written (ISO): it counts only while newer than state.json's `updated_at`. */
  at: string;
}

/** The in-flight file of a run, given `.ralph/`. */
export function inFlightFileOf(ralphDir: string, runId: string): string {
  return join(ralphDir, 'runs', runId, 'in-flight.json');
}

/**
 * Rewrites the file in place with one write at offset 0, padded with spaces to its old length (JSON
 * allows them): no rename, no truncation, so ext4 starts no writeback. A kill -9 leaves the old or
 * the new text (one write of less than a page); a torn text after a power loss reads as no file.
 */
export function writeInFlight(file: string, value: InFlight): void {
  durableWrite(file, () => {
    // A deleted `.ralph/runs/` is made again, as every other write of the run does.
    const fd = openMakingDir(file, constants.O_WRONLY | constants.O_CREAT, 0o644);
    try {
      const text = JSON.stringify(value);
      const size = fstatSync(fd).size;
      writeAll(fd, size > text.length ? text.padEnd(size, ' ') : text);
    } finally {
      closeSync(fd);
    }
  });
}

/** The file's iteration, or undefined when there is none or it cannot be read as one. */
export function readInFlight(file: string): InFlight | undefined {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<InFlight> | null;
    if (
      typeof v?.number !== 'number' ||
      typeof v.started_at !== 'string' ||
      typeof v.at !== 'string' ||
      (v.agent_pid !== null && typeof v.agent_pid !== 'number')
    )
      return undefined;
    return {
      number: v.number,
      hat: typeof v.hat === 'string' ? v.hat : null,
      started_at: v.started_at,
      agent_pid: v.agent_pid,
      agent_start_time: typeof v.agent_start_time === 'string' ? v.agent_start_time : null,
      ...(typeof v.head_before === 'string' || v.head_before === null ? { head_before: v.head_before } : {}),
      at: v.at,
    };
  } catch {
    return undefined;
  }
}

// The owner of `current` (InFlightPart): the loop, a resume and the fleet change it only through these.

/** The iteration `current` says is in progress now (null: none; a finished one is cleared with it). */
export function setCurrent(state: InFlightPart, current: CurrentIteration | null): void {
  state.current = current;
}

/** The agent of the iteration in progress started: its process group and start time (to kill it after a crash). */
export function noteAgent(state: InFlightPart, pid: number | null, startTime: string | null): void {
  if (!state.current) return;
  state.current.agent_pid = pid;
  state.current.agent_start_time = startTime;
}

/** The agent of the iteration in progress is gone (or not this machine's): nothing to kill on resume. */
export function forgetAgent(state: InFlightPart): void {
  noteAgent(state, null, null);
}
