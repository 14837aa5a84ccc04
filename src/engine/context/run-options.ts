import type { Backend } from '../../backends/types.ts';
import type { RalphConfig } from '../../config/schema.ts';
import type { StopReason } from '../../observe/events.ts';
import type { Reporter } from '../../observe/reporter.ts';
import type { SweepMarked } from '../../process/marked-processes.ts';
import type { LoopState } from '../../state/loop-state.ts';

/**
 * How a session treats the run before it. `auto`: a new run, refused over an unfinished one
 * (`unfinished_run`) or over an earlier run on the same checklist that did not complete
 * (`resume_or_fresh`). `resume`: continues the earlier run unless it completed (then a new run).
 * `fresh`: a new run whatever came before (a damaged state file is set aside).
 */
export type StartMode = 'auto' | 'resume' | 'fresh';

/**
 * What `runLoop` runs: a workspace with its config, prompt and backend (`{ workspace, ...resolveRun(…) }`
 * fits), how it starts, and the caller's reporters, abort signal and injected effects.
 */
export interface RunLoopOptions {
  workspace: string;
  config: RalphConfig;
  /** The user's prompt text (from -p, -P, or event_loop.prompt_file). */
  prompt: string;
  /**
   * The loop's backend: `resolveBackend(config.cli.backend, config)`. cli.command, cli.args,
   * cli.model and `extraArgs` are its settings; hats and fallbacks on other backends run without them.
   */
  backend: Backend;
  mode?: StartMode | undefined;
  /** Warnings about the config (`ResolvedRun.configWarnings`), announced at the start as warn notices. */
  configWarnings?: readonly string[] | undefined;
  /** Arguments given after `--`, passed to the agent. */
  extraArgs?: readonly string[] | undefined;
  /** The config files the config was layered from (`resolveRun`'s `configFiles`): read-only inside `sandbox: on`. */
  configFiles?: readonly string[] | undefined;
  /**
   * Abort to stop gracefully (Ctrl-C): a running agent is killed, an iteration whose agent is done
   * is finished and recorded, state saved, exit 130.
   */
  signal?: AbortSignal | undefined;
  /**
   * Abort to stop at once, as a second Ctrl-C does (after `signal` or instead of it): before
   * `abort()` returns, the agent's process group and every process with the run's mark are killed
   * without grace, the state is saved as interrupted (stop message "forced stop"; the iteration in
   * progress runs again on --resume) and the workspace lock given back, so the process may exit
   * right after (`ralph run` exits 130). Otherwise nothing more is saved, and `runLoop` resolves with
   * stop reason `interrupted`, exit code 130.
   */
  forceSignal?: AbortSignal | undefined;
  /**
   * Reporters of the run's event stream on top of the ones every run has (the run log, the stream
   * file, diagnostics with RALPH_DIAGNOSTICS=1, notifications, the run registry): a console
   * (`createConsoleReporter`), a UI, an embedder's own. Called after those, closed after them.
   */
  reporters?: readonly Reporter[] | undefined;
  /** Injected clock (ms since epoch). */
  now?: (() => number) | undefined;
  /**
   * The environment agents and commands start from (default `process.env`): copied once, when the
   * run starts, so a variable changed later reaches the next run's agents, not this one's.
   */
  env?: NodeJS.ProcessEnv | undefined;
  /** Kills the processes carrying a run's mark (default: a /proc sweep on Linux, nothing elsewhere). */
  sweep?: SweepMarked | undefined;
  /** The id of a new run (default: a fresh `<stamp>-<hex>`); a fleet job's run keeps its job id. */
  runId?: string | undefined;
  /**
   * Awaited after every recorded iteration, before the loop goes on (the fleet checkpoints and
   * pushes here). A returned stop ends the loop, unless the iteration already decided one.
   */
  afterIteration?: AfterIteration | undefined;
}

/** A stop asked for by `afterIteration`: the reason and a message saying why. */
export interface RequestedStop {
  reason: StopReason;
  message: string;
}

/**
 * `RunLoopOptions.afterIteration`: called with the saved state after every recorded iteration and
 * awaited before the loop goes on; resolves to a {@link RequestedStop} to end the run, or undefined.
 */
export type AfterIteration = (info: {
  /** The state as saved after the iteration (do not change it). */
  state: Readonly<LoopState>;
}) => Promise<RequestedStop | undefined>;
