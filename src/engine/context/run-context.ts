import { join } from 'node:path';
import { agentEnvBase, buildAgentEnv } from '../../agent/agent-env.ts';
import { humanChannel, humanTimeoutSeconds } from '../../config/human-checks.ts';
import type { RalphConfig } from '../../config/schema.ts';
import { RalphError } from '../../errors.ts';
import type { ForgeSession } from '../../forge/open-forge.ts';
import type { PendingChanges } from '../../git/status-cache.ts';
import type { LoopEvent } from '../../observe/events.ts';
import { RALPH_BIN, RALPH_BIN_DIR } from '../../paths-package.ts';
import {
  type KilledProcess,
  type SweepMarked,
  sweepMarkedProcesses,
} from '../../process/marked-processes.ts';
import type { SandboxPolicy } from '../../sandbox/sandbox-types.ts';
import { appendEvent } from '../../state/events-log.ts';
import { inFlightFileOf, setCurrent, writeInFlight } from '../../state/loop-state/in-flight.ts';
import type { PendingEvent } from '../../state/loop-state.ts';
import { type LoopState, writeLoopState } from '../../state/loop-state.ts';
import type { RalphPaths } from '../../state/paths.ts';
import { recordsFileOf } from '../../state/records-file.ts';
import type { WorkspaceLock } from '../../state/workspace-lock.ts';
import { checklistCondition } from '../decide/completion.ts';
import type { Counters, Limits } from '../decide/limits.ts';
import type { RunLoopOptions } from './run-options.ts';
import { parkUntil } from './spend-and-limits.ts';

/** What a run's agents are sandboxed by (`sandbox: on`): one policy per backend, its own config dirs writable. */
export interface RunSandbox {
  /** The policy for an agent of `backend` whose command is `command`. */
  policyFor(backend: string, command: string): SandboxPolicy;
}

/** What every step of one run shares: created once by `runLoop`, after the run's state is prepared. */
export interface RunContext {
  readonly options: RunLoopOptions;
  readonly config: RalphConfig;
  readonly paths: RalphPaths;
  /** The run's durable state, mutated in place by the steps and written by `persist`. */
  readonly state: LoopState;
  readonly limits: Limits;
  readonly graceMs: number;
  readonly hatsMode: boolean;
  /** The line that completes the loop (`completion.promise` for the checklist's promise condition). */
  readonly promise: string;
  readonly condition: ReturnType<typeof checklistCondition>;
  readonly eventsFile: string;
  /** `.ralph/runs/<run>/iterations.jsonl`: one record per finished iteration. */
  readonly recordsFile: string;
  readonly inRepo: boolean;
  /** The workspace's uncommitted changes (git status, run again only when something changed). */
  readonly pendingChanges: PendingChanges | undefined;
  /** Health warnings already shown in this session (each is shown once). */
  readonly warned: Set<string>;
  readonly now: () => number;
  /** Kills what the run's iterations left running, whatever its session, group or parent. */
  readonly sweep: SweepMarked;
  /** What the sweeps after gate commands and before human waits killed since the last iteration record. */
  readonly leftovers: KilledProcess[];
  /** The caller's environment (`options.env`), copied once for the run's agents and commands. */
  readonly agentEnvBase: NodeJS.ProcessEnv;
  /** Removes API keys from text Ralph writes outside the event stream (records, state messages). */
  readonly redact: (text: string) => string;
  emit(event: LoopEvent): void;
  /**
   * Re-asserts the workspace lock at a boundary of the run (a stat and a compare while nothing
   * changed): a deleted or rewritten lock file is put back; another live loop holding the workspace
   * throws `lock_held`, and the run ends without another commit or write of its state.
   */
  holdLock(): void;
  /** Saves the state; `{ fsync: false }` for bookkeeping (agent pid, heartbeats) between commit points. */
  persist(options?: { fsync?: boolean }): void;
  /**
   * Saves `state.current` (the iteration whose agent just started, and its pid) to the run's
   * in-flight file instead of rewriting state.json; readers lay it over the state.
   */
  persistInFlight(): void;
  /**
   * Saves a park (null: its end) where `ralph status` reads it. Between iterations it is the run's
   * state; within one (a pull request step) only the park joins what state.json last held, the
   * half-settled iteration staying in memory: a kill -9 then resumes by waiting and re-running it.
   */
  persistPark(parked: LoopState['parked']): void;
  /**
   * Puts the in-memory state back to what was last saved: after a failure mid-step (a full disk),
   * the run ends as a kill at that instant would have left it, never half-settled.
   */
  restoreSaved(): void;
  /** An iteration's agent ran and its end (record, counters) is not saved yet. */
  cutShort(): boolean;
  /** Records an event Ralph publishes itself, in the events file and the event stream. */
  publish(e: PendingEvent, hat: string | null): void;
  /** Runtime used by the run, previous sessions included. */
  elapsed(): number;
  counters(): Counters;
  /** forge.pull_requests: the checked connection to GitHub, set by the pre-flight (undefined: off). */
  forge?: ForgeSession | undefined;
  /** The wait for a spent GitHub quota the forge client calls (run/forge-quota.ts); set by the loop. */
  forgeQuotaWait?: ((resetMs: number, message: string) => Promise<boolean>) | undefined;
  /** `sandbox: on`: the policy every agent of the run (iterations, the reviewer) runs in. */
  readonly sandbox?: RunSandbox | undefined;
}

export interface RunContextInput {
  options: RunLoopOptions;
  paths: RalphPaths;
  state: LoopState;
  limits: Limits;
  inRepo: boolean;
  pendingChanges?: PendingChanges | undefined;
  redact?: ((text: string) => string) | undefined;
  emit: (event: LoopEvent) => void;
  /** The workspace lock the run holds (runLoop's); without it holdLock does nothing. */
  lock?: WorkspaceLock | undefined;
  /** True after a forced stop: the state on disk is its record, so a step that would save more ends there. */
  forced?: (() => boolean) | undefined;
  /** `sandbox: on`: the run's sandbox (gatherRunSandbox). */
  sandbox?: RunSandbox | undefined;
}

/** Ends the step that would write after a forced stop (runLoop knows why, and ends the run as saved). */
function refuseAfterForce(forced: (() => boolean) | undefined): void {
  if (forced?.()) throw new Error('forced stop: the run is saved as interrupted; nothing more is written');
}

/** Builds the shared context; the session clock starts now. */
export function createRunContext(input: RunContextInput): RunContext {
  const { options, paths, state, limits, emit } = input;
  const { config } = options;
  const now = options.now ?? Date.now;
  const condition = checklistCondition(config);
  const eventsFile = join(options.workspace, state.events_file);
  const sessionStart = now();
  const baseElapsed = state.elapsed_ms;
  const elapsed = () => baseElapsed + (now() - sessionStart);
  // What state.json holds (as far as this run knows): the state restoreSaved() goes back to.
  // What was last saved, as the file holds it: the text written, parsed back only to restore
  // (a structured clone after every write cost more than the rest of the bookkeeping of a save).
  let saved = JSON.stringify(state);
  // The iteration whose agent started and whose end is not saved: restoreSaved keeps it current, so
  // --resume judges it again from its saved start (as after a kill) instead of counting it unjudged.
  let flying: LoopState['current'] = null;
  return {
    options,
    config,
    paths,
    state,
    limits,
    graceMs: config.event_loop.kill_grace_seconds * 1000,
    hatsMode: Object.keys(config.hats).length > 0,
    promise: config.completion.promise ?? config.event_loop.completion_promise,
    condition,
    eventsFile,
    recordsFile: recordsFileOf(paths, state.run_id),
    inRepo: input.inRepo,
    pendingChanges: input.pendingChanges,
    sandbox: input.sandbox,
    warned: new Set<string>(),
    now,
    sweep: options.sweep ?? sweepMarkedProcesses,
    leftovers: [],
    agentEnvBase: agentEnvBase(options.env ?? process.env),
    redact: input.redact ?? ((text: string) => text),
    emit,
    holdLock: () => {
      refuseAfterForce(input.forced);
      const check = input.lock?.reassert();
      if (check?.kind === 'restored')
        emit({
          type: 'notice',
          level: 'warn',
          message: `the workspace lock was deleted or rewritten during the run (not by Ralph); put back: ${check.files.join(', ')}`,
        });
      if (check?.kind === 'lost') throw lockLost(check.holder);
    },
    persist: (opts) => {
      refuseAfterForce(input.forced);
      saved = writeLoopState(paths.state, state, opts);
      if (!state.current) flying = null;
    },
    persistInFlight: () => {
      refuseAfterForce(input.forced);
      if (!state.current) return;
      flying = { ...state.current };
      // The real clock, as writeLoopState's `updated_at`: the two are compared.
      writeInFlight(inFlightFileOf(paths.dir, state.run_id), {
        ...state.current,
        at: new Date().toISOString(),
      });
    },
    persistPark: (parked) => {
      refuseAfterForce(input.forced);
      if (flying === null) {
        parkUntil(state, parked);
        saved = writeLoopState(paths.state, state);
      } else writeLoopState(paths.state, { ...(JSON.parse(saved) as LoopState), current: flying, parked });
    },
    restoreSaved: () => {
      const back = JSON.parse(saved) as LoopState;
      for (const key of Object.keys(state)) delete (state as unknown as Record<string, unknown>)[key];
      Object.assign(state, back);
      // Its agent is gone (swept): the same number runs again on --resume.
      if (flying && !state.current && state.iterations < flying.number)
        setCurrent(state, { ...flying, agent_pid: null, agent_start_time: null });
    },
    cutShort: () => flying !== null,
    publish: (e, hat) => {
      appendEvent(eventsFile, {
        topic: e.topic,
        payload: e.payload,
        ts: new Date(now()).toISOString(),
        iteration: e.iteration ?? state.iterations,
        hat,
        source: e.source,
      });
      emit({
        type: 'event.published',
        iteration: e.iteration ?? state.iterations,
        hat,
        topic: e.topic,
        payload: e.payload,
        source: e.source,
      });
    },
    elapsed,
    counters: () => ({
      iterations: state.iterations,
      elapsedMs: elapsed(),
      costUsd: state.cost_usd,
      tokens: state.tokens.total,
      consecutiveFailures: state.consecutive_failures,
    }),
  };
}

/** Runtime left before max_runtime_seconds (never negative; infinite without the limit). */
export function runtimeLeftMs(ctx: RunContext): number {
  return Math.max(0, (ctx.limits.maxRuntimeMs ?? Number.POSITIVE_INFINITY) - ctx.elapsed());
}

/** The environment of an agent or gate command run for `iteration`, with Ralph's variables. */
export function ralphEnv(
  ctx: RunContext,
  iteration: number,
  hat: string | null,
  extra: Record<string, string>[],
): NodeJS.ProcessEnv {
  return buildAgentEnv({
    base: ctx.agentEnvBase,
    eventsFile: ctx.eventsFile,
    ralphBin: RALPH_BIN,
    ralphBinDir: RALPH_BIN_DIR,
    workspace: ctx.options.workspace,
    iteration,
    hat,
    runId: ctx.state.run_id,
    human: {
      timeoutSeconds: humanTimeoutSeconds(ctx.config),
      defaultAnswer: ctx.config.human.default_answer,
      channel: humanChannel(ctx.config),
    },
    extra,
  });
}

/** The sandbox option of an agent turn of `backend` running `command` (undefined: the run is unsandboxed). */
export function turnSandbox(ctx: RunContext, backend: string, command: string) {
  return ctx.sandbox ? { policy: ctx.sandbox.policyFor(backend, command) } : undefined;
}

/** The stop of a run whose workspace another live loop holds now: said once, nothing more written. */
function lockLost(holder: { pid: number; host: string }): RalphError {
  return new RalphError(
    'lock_held',
    `another ralph loop (pid ${holder.pid} on ${holder.host}) holds this workspace's lock now; this run stopped without committing or saving more — see \`ralph status\``,
  );
}
