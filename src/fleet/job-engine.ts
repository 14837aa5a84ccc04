/**
 * The job engine the fleet runs on, kept small so BullMQ could be swapped (DESIGN.md §5 "Fleet").
 * One job = one loop run; the job id is the run id.
 */

/** What `ralph fleet submit` asks for: where the code is and how to run the loop on it. */
export interface FleetJobSpec {
  /** A git URL or a path every worker can reach (a local bare repository in tests). */
  repo: string;
  /** The branch the run starts from; the run works on `ralph/fleet/<run-id>`. */
  branch: string;
  preset?: string | undefined;
  /** A config file inside the repository (`-c`), relative to its root. */
  config?: string | undefined;
  maxCostUsd?: number | undefined;
  name?: string | undefined;
  submittedAt: string;
}

/** Where a fleet run is, as `ralph fleet status` shows it. */
export type FleetRunState =
  | 'queued'
  | 'running'
  | 'handed_over'
  | 'completed'
  | 'stopped'
  | 'cancelled'
  | 'failed';

/** A run as the fleet knows it (the run's record in Redis, written by the lock holder). */
export interface FleetRunInfo {
  runId: string;
  name: string | null;
  state: FleetRunState;
  worker: string | null;
  iteration: number;
  costUsd: number;
  tokens: number;
  stopReason: string | null;
  message: string | null;
  /** The commit `ralph/fleet/<run-id>` was pushed at with the last checkpoint. */
  commit: string | null;
  submittedAt: string | null;
  updatedAt: string | null;
  /** Pick-ups of the run by a worker (1 = never resumed elsewhere). */
  attempts: number;
  /** Files the last checkpoint left out for their size (and what that means), or null. */
  checkpointSkipped: string | null;
  spec: FleetJobSpec | null;
}

/** A checkpointed file's bytes, carried as they are (a string stands for its UTF-8 bytes). */
export type FileContent = Buffer | string;

/** A checkpoint: the run's `.ralph/` files that changed, and what the fleet shows of the run. */
export interface Checkpoint {
  /** Workspace-relative path → content (bytes, binary files too); `null` deletes a file from the checkpoint. */
  files: Record<string, FileContent | null>;
  /** Fields of the run's record (state, iteration, cost, commit …). */
  run: Partial<Record<keyof FleetRunInfo, string | number | null>>;
  /** Cost added since the last checkpoint, counted once into the fleet-wide total. */
  costDelta: number;
}

/** Why a job's signal was aborted (`ActiveJob.signal.reason`). */
export const ABORT_CANCELLED = 'cancelled';
export const ABORT_FENCE_LOST = 'fence_lost';

/** One job held by this worker, with its fenced operations. */
export interface ActiveJob {
  runId: string;
  spec: FleetJobSpec;
  workerId: string;
  /** Aborted when the run must stop at once: cancelled, or the lock was lost (see `reason`). */
  signal: AbortSignal;
  /** Whether the worker is draining: the run is to be handed over at the next iteration boundary. */
  draining(): boolean;
  /** Writes a checkpoint only while this worker holds the job's lock; else throws FenceLostError. */
  writeCheckpoint(checkpoint: Checkpoint): Promise<void>;
  /** The files of the last checkpoint (empty for a new run). */
  readFiles(): Promise<Record<string, Buffer>>;
  /** The run's record as the last lock holder left it. */
  readRun(): Promise<FleetRunInfo | undefined>;
  /** Whether `ralph fleet cancel` was asked for this run (also when its message was missed). */
  cancelRequested(): Promise<boolean>;
  /** The fleet-wide cost so far (every run's checkpointed cost). */
  fleetCost(): Promise<number>;
}

/** How a job's processing ended, which decides what happens to the job. */
export type JobOutcome =
  | { kind: 'finished'; state: 'completed' | 'stopped' | 'cancelled' | 'failed' }
  /** Drain: back to the queue at once for another worker (no lock expiry to wait for). */
  | { kind: 'handover' }
  /** The lock was lost: leave the job alone, its new owner has it. */
  | { kind: 'fenced' };

export interface WorkerOptions {
  workerId: string;
  concurrency: number;
  /** Lock lifetime (ms): how soon a dead worker's run is resumed elsewhere. */
  lockDurationMs: number;
  /** Fleet-wide limit of runs at once (`Queue.setGlobalConcurrency`), if set. */
  globalConcurrency?: number | undefined;
  /** Told about lost locks, hand-overs and errors (the CLI prints them). */
  onNotice?: ((message: string) => void) | undefined;
}

export interface WorkerHandle {
  /** Stop taking jobs, hand running runs over at their next iteration boundary, then close. */
  drain(): Promise<void>;
  /** Resolves once the worker closed (after a drain, `ralph fleet drain` or `close`). */
  readonly closed: Promise<void>;
}

/** The fleet's job engine (BullMQ on Redis, from openFleet): submit, list, watch and work runs. */
export interface JobEngine {
  submit(spec: FleetJobSpec, runId: string): Promise<void>;
  list(): Promise<FleetRunInfo[]>;
  get(runId: string): Promise<FleetRunInfo | undefined>;
  /** The files of a run's last checkpoint (events, iteration records, log …). */
  files(runId: string): Promise<Record<string, Buffer>>;
  /** Removes a queued run, or tells the worker running it to stop now; never retried. */
  cancel(runId: string): Promise<'removed' | 'signalled' | 'finished' | 'unknown'>;
  /** Tells every worker (or one) to hand its runs over and exit. */
  drain(workerId?: string): Promise<void>;
  startWorker(
    options: WorkerOptions,
    process: (job: ActiveJob) => Promise<JobOutcome>,
  ): Promise<WorkerHandle>;
  close(): Promise<void>;
}

/** The branch a fleet run works on. */
export function fleetBranch(runId: string): string {
  return `ralph/fleet/${runId}`;
}
