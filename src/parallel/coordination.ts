import type { BackendName, RalphConfig } from '../config/schema.ts';
import type { StartMode } from '../engine/context/run-context.ts';
import type { ParallelEventListener } from '../observe/parallel-events.ts';
import type { ParallelState } from '../state/parallel-files.ts';
import type { ParallelStop } from './parallel-decide.ts';
import type { TaskSourceKind } from './task-source.ts';
import type { SpawnWorker } from './worker-process.ts';
import type { ActiveWorker, WorkerSetup } from './worker-runs.ts';

export interface ParallelOptions {
  /** The coordinating workspace: a git checkout on the target branch. */
  workspace: string;
  config: RalphConfig;
  prompt: string;
  backend: BackendName;
  extraArgs?: readonly string[] | undefined;
  workers: number;
  mode?: StartMode | undefined;
  /** Abort (Ctrl-C): every worker is interrupted, records its iteration and saves its state. */
  signal?: AbortSignal | undefined;
  onEvent?: ParallelEventListener | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  spawnWorker?: SpawnWorker | undefined;
  now?: (() => number) | undefined;
  /** How often worker progress and the stop inbox are looked at (ms). */
  pollMs?: number | undefined;
}

export interface ParallelResult {
  exitCode: number;
  reason: string;
  message: string;
  state: ParallelState;
}

/** What the coordinator's steps share while a parallel run goes on. */
export interface Coordination {
  readonly o: ParallelOptions;
  readonly state: ParallelState;
  readonly setup: WorkerSetup;
  readonly kind: TaskSourceKind;
  /** Worker slot (w1 …, or `merge` for a resolving run) → its process. */
  readonly active: Map<string, ActiveWorker>;
  /** Workers whose process has exited and whose end is not handled yet. */
  readonly ended: Set<ActiveWorker>;
  stopping: ParallelStop | null;
  persist(): void;
  emit: ParallelEventListener;
  /** What is left of the shared limits. */
  left(): { costUsd: number | undefined; tokens: number | undefined; runtimeSeconds: number };
  /** Tracks a started (or adopted) worker: its exit wakes the coordinator. */
  watch(a: ActiveWorker): void;
}
