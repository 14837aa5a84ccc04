import { appendFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../backends/types.ts';
import type { RalphConfig } from '../config/schema.ts';
import { readGitHead } from '../git/head.ts';
import { createRunLogSink } from '../observe/run-log.ts';
import { RALPH_BIN, RALPH_BIN_DIR } from '../paths-package.ts';
import { assemblePrompt } from '../routing/prompt.ts';
import { routeIteration } from '../routing/route.ts';
import { type LoopState, writeLoopState } from '../state/loop-state.ts';
import { ralphPaths } from '../state/paths.ts';
import { buildAgentEnv } from './agent-env.ts';
import { promiseFulfilled } from './completion.ts';
import type { IterationRecord, LoopEvent, LoopEventListener } from './events.ts';
import { type Counters, judgeIteration, type Limits, limitReached, type Stop, stop } from './limits.ts';
import { runAgent } from './run-agent.ts';
import { prepareRun, type StartMode } from './run-setup.ts';
import { addTotals } from './usage-meter.ts';

export interface RunLoopOptions {
  workspace: string;
  config: RalphConfig;
  /** The user's prompt text (from -p, -P, or event_loop.prompt_file). */
  prompt: string;
  backend: Backend;
  mode?: StartMode | undefined;
  /** Arguments given after `--`, passed to the agent. */
  extraArgs?: readonly string[] | undefined;
  /** Abort to stop gracefully (Ctrl-C): the agent group is killed, state saved, exit 130. */
  signal?: AbortSignal | undefined;
  onEvent?: LoopEventListener | undefined;
  /** Injected clock (ms since epoch). */
  now?: (() => number) | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

export interface LoopResult {
  runId: string;
  exitCode: number;
  stopReason: Stop['reason'];
  message: string;
  state: LoopState;
  logFile: string;
}

/** Limits of a config, in the units the engine uses. */
export function limitsOf(config: RalphConfig): Limits {
  const l = config.event_loop;
  return {
    maxIterations: l.max_iterations,
    maxRuntimeMs: l.max_runtime_seconds * 1000,
    maxCostUsd: l.max_cost_usd,
    maxTokens: l.max_tokens,
    maxConsecutiveFailures: l.max_consecutive_failures,
  };
}

function sleep(ms: number, signal: AbortSignal | undefined, stopFile: string): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      clearInterval(poll);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const poll = setInterval(() => existsSync(stopFile) && done(), 250);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs the loop until completion, a limit, repeated failure, a stop request or an interrupt.
 * Never writes to the console and never exits the process: everything observable goes through
 * `onEvent`, `.ralph/state.json`, the run log and the iteration records.
 */
export async function runLoop(options: RunLoopOptions): Promise<LoopResult> {
  const now = options.now ?? Date.now;
  const { config, backend } = options;
  const paths = ralphPaths(options.workspace);
  const limits = limitsOf(config);
  const graceMs = config.event_loop.kill_grace_seconds * 1000;

  // Fail on an unusable backend before touching any state.
  backend.buildInvocation({
    prompt: options.prompt,
    config,
    workspace: options.workspace,
    extraArgs: options.extraArgs ?? [],
  });

  const prepared = await prepareRun({
    paths,
    mode: options.mode ?? 'auto',
    backend: backend.name,
    maxIterations: limits.maxIterations,
    killGraceMs: graceMs,
    now: new Date(now()),
  });
  const { state, lock } = prepared;
  const logFile = join(options.workspace, state.log_file);
  const log = createRunLogSink(logFile);
  const listeners = [log.listener, ...(options.onEvent ? [options.onEvent] : [])];
  const emit = (event: LoopEvent) => {
    for (const l of listeners) l(event);
  };
  const persist = () => writeLoopState(paths.state, state);
  const recordsFile = join(paths.runs, state.run_id, 'iterations.jsonl');
  mkdirSync(join(paths.runs, state.run_id), { recursive: true });

  const sessionStart = now();
  const baseElapsed = state.elapsed_ms;
  const elapsed = () => baseElapsed + (now() - sessionStart);
  const counters = (): Counters => ({
    iterations: state.iterations,
    elapsedMs: elapsed(),
    costUsd: state.cost_usd,
    tokens: state.tokens.total,
    consecutiveFailures: state.consecutive_failures,
  });

  let final: Stop | undefined;
  try {
    const head = readGitHead(options.workspace);
    emit({
      type: 'loop.started',
      runId: state.run_id,
      resumed: prepared.resumed,
      workspace: options.workspace,
      backend: backend.name,
      maxIterations: limits.maxIterations,
      branch: head.branch,
      logFile,
      at: now(),
    });
    for (const message of prepared.notices) emit({ type: 'notice', level: 'info', message });
    if (Object.keys(config.hats).length > 0) {
      emit({
        type: 'notice',
        level: 'warn',
        message: 'hats are configured but this version runs solo mode only; the hats are not used',
      });
    }

    while (final === undefined) {
      if (options.signal?.aborted) {
        final = stop('interrupted', 'interrupted (Ctrl-C); resume with `ralph run --resume`');
        break;
      }
      if (existsSync(paths.stopRequest)) {
        rmSync(paths.stopRequest, { force: true });
        final = stop('cancelled', 'stopped by `ralph stop`');
        break;
      }
      final = limitReached(counters(), limits);
      if (final) break;
      final = await runIteration();
      if (final) break;
      final = limitReached(counters(), limits);
      if (final) break;
      await sleep(config.event_loop.cooldown_delay_seconds * 1000, options.signal, paths.stopRequest);
    }
  } catch (error) {
    final = stop('error', `internal error: ${(error as Error).message}`);
    throw error;
  } finally {
    const end = final ?? stop('error', 'the loop ended unexpectedly');
    state.elapsed_ms = elapsed();
    state.status =
      end.reason === 'completed' ? 'completed' : end.reason === 'interrupted' ? 'interrupted' : 'stopped';
    state.stop_reason = end.reason;
    state.stop_message = end.message;
    state.exit_code = end.exitCode;
    persist();
    emit({
      type: 'loop.finished',
      runId: state.run_id,
      stopReason: end.reason,
      message: end.message,
      exitCode: end.exitCode,
      iterations: state.iterations,
      elapsedMs: state.elapsed_ms,
      tokens: state.tokens,
      costUsd: state.cost_usd,
      logFile,
    });
    log.close();
    lock.release();
  }
  return {
    runId: state.run_id,
    exitCode: final.exitCode,
    stopReason: final.reason,
    message: final.message,
    state,
    logFile,
  };

  /** One iteration; returns a Stop when the loop must end because of it. */
  async function runIteration(): Promise<Stop | undefined> {
    const number = state.current?.number ?? state.iterations + 1;
    const route = routeIteration(
      config,
      state.pending_events.map((e) => e.topic),
    );
    const prompt = assemblePrompt({
      base: options.prompt,
      completionPromise: config.event_loop.completion_promise,
      hatInstructions: route.hat ? route.hat.instructions : null,
    });
    const invocation = backend.buildInvocation({
      prompt,
      config,
      workspace: options.workspace,
      extraArgs: options.extraArgs ?? [],
    });
    const startedAt = now();
    const headBefore = readGitHead(options.workspace);
    state.current = {
      number,
      hat: route.hatId,
      started_at: new Date(startedAt).toISOString(),
      agent_pid: null,
      agent_start_time: null,
    };
    // Persisted once the agent's pid is known (onSpawn); a crash before that re-runs the same number anyway.
    emit({
      type: 'iteration.started',
      iteration: number,
      maxIterations: limits.maxIterations,
      hat: route.hatId,
      backend: backend.name,
      elapsedMs: elapsed(),
      branch: headBefore.branch,
      startedAt,
    });

    const iterationMs = (route.hat?.timeout ?? config.event_loop.iteration_timeout_seconds) * 1000;
    const runtimeLeft = (limits.maxRuntimeMs ?? Number.POSITIVE_INFINITY) - elapsed();
    const parser = backend.createParser();
    const run = await runAgent({
      iteration: number,
      invocation,
      parser,
      cwd: options.workspace,
      env: buildAgentEnv({
        base: options.env ?? process.env,
        eventsFile: join(options.workspace, state.events_file),
        ralphBin: RALPH_BIN,
        ralphBinDir: RALPH_BIN_DIR,
        workspace: options.workspace,
        iteration: number,
        hat: route.hatId,
        runId: state.run_id,
        extra: [config.cli.env, invocation.env],
      }),
      timeoutMs: Math.max(0, Math.min(iterationMs, runtimeLeft)),
      timeoutReason: runtimeLeft < iterationMs ? 'max_runtime' : 'iteration_timeout',
      idleTimeoutMs: config.event_loop.idle_timeout_seconds * 1000,
      killGraceMs: graceMs,
      signal: options.signal,
      stopRequestFile: paths.stopRequest,
      costLeftUsd: limits.maxCostUsd === undefined ? undefined : limits.maxCostUsd - state.cost_usd,
      tokensLeft: limits.maxTokens === undefined ? undefined : limits.maxTokens - state.tokens.total,
      emit,
      onSpawn: (pid, startTime) => {
        if (state.current) {
          state.current.agent_pid = pid;
          state.current.agent_start_time = startTime ?? null;
        }
        persist();
        emit({ type: 'agent.spawned', iteration: number, pid, command: invocation.command });
      },
      onHeartbeat: () => {
        state.elapsed_ms = elapsed();
        persist();
      },
    });

    const sup = run.supervised;
    const tokens = run.meter.totals();
    state.tokens = addTotals(state.tokens, tokens);
    state.cost_usd += run.meter.costUsd ?? 0;
    state.elapsed_ms = elapsed();
    const verdict = judgeIteration(
      {
        exitCode: sup.exitCode,
        signal: sup.signal,
        killedBy: sup.killedBy,
        spawnError: sup.spawnError?.message,
        resultError: run.resultError,
        promiseSeen: promiseFulfilled(parser.finalText(), config.event_loop.completion_promise, prompt),
      },
      limits,
      counters(),
    );
    if (verdict.kind === 'aborted') {
      if (state.current) state.current.agent_pid = null; // re-run on --resume
    } else {
      state.iterations = Math.max(state.iterations, number);
      state.current = null;
      state.consecutive_failures = verdict.kind === 'failure' ? state.consecutive_failures + 1 : 0;
    }
    const finishedAt = now();
    const record: IterationRecord = {
      run_id: state.run_id,
      iteration: number,
      hat: route.hatId,
      backend: backend.name,
      started_at: new Date(startedAt).toISOString(),
      finished_at: new Date(finishedAt).toISOString(),
      duration_ms: finishedAt - startedAt,
      exit_code: sup.exitCode,
      signal: sup.signal,
      killed_by: sup.killedBy,
      tokens,
      cost_usd: run.meter.costUsd ?? null,
      context_pct: run.meter.contextPct(),
      model: run.meter.model ?? null,
      head_before: headBefore.commit ?? null,
      head_after: readGitHead(options.workspace).commit ?? null,
      verdict: verdict.kind,
      reason:
        verdict.kind === 'failure'
          ? verdict.why
          : verdict.kind === 'aborted' || verdict.kind === 'limit'
            ? verdict.stop.message
            : null,
      consecutive_failures: state.consecutive_failures,
    };
    appendFileSync(recordsFile, `${JSON.stringify(record)}\n`);
    persist();
    emit({
      type: 'iteration.finished',
      record,
      totals: { costUsd: state.cost_usd, tokens: state.tokens.total },
    });

    if (verdict.kind === 'complete')
      return stop('completed', `completion promise "${config.event_loop.completion_promise}" received`);
    if (verdict.kind === 'aborted' || verdict.kind === 'limit') return verdict.stop;
    if (sup.spawnError && (sup.spawnError as NodeJS.ErrnoException).code === 'ENOENT') {
      return stop(
        'error',
        `agent command not found: ${invocation.command} — install it or fix cli.command / cli.backend`,
      );
    }
    return undefined;
  }
}
