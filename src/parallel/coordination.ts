import type { Backend } from '../backends/types.ts';
import type { BackendName, RalphConfig } from '../config/schema.ts';
import type { StartMode } from '../engine/context/run-options.ts';
import type { ForgeSession } from '../forge/open-forge.ts';
import type { ConfigMark } from '../git/workspace-guard/program-config.ts';
import type { ParallelEvent, ParallelReporter } from '../observe/parallel-events.ts';
import type { ParallelState } from '../state/parallel-files.ts';
import type { ParallelStop } from './parallel-decide.ts';
import type { TaskSourceKind } from './task-source.ts';
import type { SpawnWorker } from './worker-process.ts';
import type { ActiveWorker, WorkerSetup } from './worker-runs.ts';

/**
 * What `runParallel` takes: a resolved run (`{ workspace, ...resolveRun(…) }` fits) and how many
 * workers. Every worker runs `ralph parallel-worker` (this package's `bin/ralph`) in its own worktree.
 */
export interface ParallelOptions {
  /** The coordinating workspace: a git checkout on the target branch. */
  workspace: string;
  config: RalphConfig;
  /** The user's prompt; each worker's prompt adds its task above it. */
  prompt: string;
  /** The workers' backend: its name, or the resolved adapter (`resolveRun(…).backend`), of which its name. */
  backend: BackendName | Backend;
  /** Arguments given after `--`, passed to every worker's agent. */
  extraArgs?: readonly string[] | undefined;
  /** How many workers run at once (`--parallel N`); default `config.parallel`. */
  workers?: number | undefined;
  /** `resume` continues the unfinished parallel run (claims, worktrees, merge queue), `fresh` starts over. */
  mode?: StartMode | undefined;
  /** Abort (Ctrl-C): every worker is interrupted, records its iteration and saves its state. */
  signal?: AbortSignal | undefined;
  /**
   * Abort to stop at once (a second Ctrl-C), after `signal` or instead of it: every worker's process
   * group, its agent's group and every process with its run's mark are killed without grace, and each
   * worker's run saved as a forced stop, before `abort()` returns, so the process may exit right
   * after; `--resume` goes on from the claims and the merge queue as saved.
   */
  forceSignal?: AbortSignal | undefined;
  /**
   * The sinks of the coordinator's event stream (`ParallelEvent`, in order; `close` once the run has
   * ended, after `parallel.finished`): the console lines, the TUI, an embedder's own.
   */
  reporters?: readonly ParallelReporter[] | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  spawnWorker?: SpawnWorker | undefined;
  now?: (() => number) | undefined;
  /** How often worker progress and the stop inbox are looked at (ms). */
  pollMs?: number | undefined;
}

/** {@link ParallelOptions} with its defaults applied: the backend by name, the worker count. */
export interface ParallelSettings extends Omit<ParallelOptions, 'backend' | 'workers'> {
  backend: BackendName;
  workers: number;
}

/** The defaults of {@link ParallelOptions}, applied once where `runParallel` starts. */
export function parallelSettings(o: ParallelOptions): ParallelSettings {
  const backend = typeof o.backend === 'string' ? o.backend : (o.backend.name as BackendName);
  return { ...o, backend, workers: o.workers ?? o.config.parallel };
}

/** How a parallel run ended (`ralph run --parallel` exits with `exitCode`) and its saved state. */
export interface ParallelResult {
  exitCode: number;
  reason: string;
  message: string;
  state: ParallelState;
}

/** What the coordinator's steps share while a parallel run goes on. */
export interface Coordination {
  readonly o: ParallelSettings;
  readonly state: ParallelState;
  readonly setup: WorkerSetup;
  readonly kind: TaskSourceKind;
  /** Worker slot (w1 …, or `merge` for a resolving run) → its process. */
  readonly active: Map<string, ActiveWorker>;
  /** Workers whose process has exited and whose end is not handled yet. */
  readonly ended: Set<ActiveWorker>;
  stopping: ParallelStop | null;
  /**
   * A merged task is being marked done in its source and is not announced merged yet: no task
   * starts from the source meanwhile (the next milestone, a blocked task wait for the announcement).
   */
  markingDone: boolean;
  /** Aborted once the run stops (Ctrl-C, `ralph stop`, a limit): a wait for a pull request ends. */
  readonly halted: AbortSignal;
  /** `merge.via: pull_request`: the forge tasks land through. */
  readonly forge: ForgeSession | undefined;
  persist(): void;
  emit(event: ParallelEvent): void;
  /** What is left of the shared limits. */
  left(): { costUsd: number | undefined; tokens: number | undefined; runtimeSeconds: number };
  /** The repository's program-running git config as the run started (undefined outside git). */
  readonly gitConfig: ConfigMark | undefined;
  /** Tracks a started (or adopted) worker: its exit wakes the coordinator. */
  watch(a: ActiveWorker): void;
}
