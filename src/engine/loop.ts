import { appendFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveBackend } from '../backends/registry.ts';
import type { Backend } from '../backends/types.ts';
import type { RalphConfig } from '../config/schema.ts';
import { healthFatal, runHealthChecks } from '../gates/health.ts';
import { type GateResult, runGate, testsReport, validateCommand } from '../gates/run-gate.ts';
import { isGitRepo, pushWithRetry } from '../git/git.ts';
import { readGitHead } from '../git/head.ts';
import { createDiagnosticsSink } from '../observe/diagnostics.ts';
import { createRunLogSink } from '../observe/run-log.ts';
import { RALPH_BIN, RALPH_BIN_DIR } from '../paths-package.ts';
import { assemblePrompt } from '../routing/prompt.ts';
import { selectHat } from '../routing/select-hat.ts';
import { writeFileAtomicSync } from '../state/atomic-write.ts';
import { appendEvent } from '../state/events-log.ts';
import { type LoopState, writeLoopState } from '../state/loop-state.ts';
import { ralphPaths } from '../state/paths.ts';
import { buildAgentEnv } from './agent-env.ts';
import {
  checklistCondition,
  checklistContextBlock,
  currentMilestoneTitle,
  readChecklist,
  writeIterationMarker,
} from './checklist-step.ts';
import { collectEvents } from './collect-events.ts';
import { promiseFulfilled } from './completion.ts';
import { markerReached, summarize } from './completion-marker.ts';
import {
  decideEvents,
  eventSignature,
  type PendingEvent,
  STALE_REPEATS,
  TASK_START,
} from './event-decisions.ts';
import type { IterationRecord, LoopEvent, LoopEventListener } from './events.ts';
import {
  commitIteration,
  commitMessage,
  dirtyTreeMessage,
  filesChanged,
  gitPreflight,
  requireClean,
} from './git-step.ts';
import { waitWhileIdle } from './idle-wait.ts';
import { type Counters, judgeIteration, type Limits, limitReached, type Stop, stop } from './limits.ts';
import { runAgent } from './run-agent.ts';
import { prepareRun, type StartMode } from './run-setup.ts';
import { checkTddStateAtStart, freshTddBook, tddAfterIteration, tddScopeViolations } from './tdd-step.ts';
import { addTotals } from './usage-meter.ts';
import { countOpenTasks, readWorkspaceContext, scratchpadPath } from './workspace-context.ts';

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

/** Characters of the scratchpad's newest part put in the prompt. */
const SCRATCHPAD_BUDGET = 6000;
/** Malformed event lines in a row that stop the loop. */
const MAX_MALFORMED = 3;

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

/** The events a new run starts with: the starting event in hats mode, nothing in solo mode. */
export function initialEvents(config: RalphConfig): PendingEvent[] {
  if (Object.keys(config.hats).length === 0) return [];
  const topic = config.event_loop.starting_event ?? TASK_START;
  return [{ topic, payload: null, source: 'starting_event', iteration: null }];
}

/**
 * Runs the loop until completion, a limit, repeated failure, a stop request or an interrupt.
 * Never writes to the console and never exits the process: everything observable goes through
 * `onEvent`, `.ralph/state.json`, the events file, the run log and the iteration records.
 */
export async function runLoop(options: RunLoopOptions): Promise<LoopResult> {
  const now = options.now ?? Date.now;
  const { config } = options;
  const paths = ralphPaths(options.workspace);
  const limits = limitsOf(config);
  const graceMs = config.event_loop.kill_grace_seconds * 1000;
  const hatsMode = Object.keys(config.hats).length > 0;
  // The line that completes the loop (`completion.promise` for the checklist's promise condition).
  const promise = config.completion.promise ?? config.event_loop.completion_promise;
  const condition = checklistCondition(config);
  // With a checklist, only the condition chosen completes: an agent saying "done" is not enough.
  const outputPromiseCounts = condition === undefined || condition === 'promise';
  const extraArgs = options.extraArgs ?? [];

  // Fail on an unusable backend, or a repository Ralph must not touch, before touching any state.
  options.backend.buildInvocation({
    prompt: options.prompt,
    config,
    workspace: options.workspace,
    extraArgs,
  });
  await gitPreflight(options.workspace, config);
  const inRepo = await isGitRepo(options.workspace);
  const warned = new Set<string>();
  const startProgress = readChecklist(options.workspace, config, null)?.progress;

  const prepared = await prepareRun({
    paths,
    mode: options.mode ?? 'auto',
    backend: options.backend.name,
    maxIterations: limits.maxIterations,
    killGraceMs: graceMs,
    now: new Date(now()),
    initialEvents: initialEvents(config),
    scratchpadFile: scratchpadPath(config, paths),
  });
  const { state, lock } = prepared;
  const logFile = join(options.workspace, state.log_file);
  const eventsFile = join(options.workspace, state.events_file);
  const log = createRunLogSink(logFile);
  const diagnostics =
    (options.env ?? process.env).RALPH_DIAGNOSTICS === '1'
      ? createDiagnosticsSink(options.workspace, { now })
      : undefined;
  const listeners = [
    log.listener,
    ...(diagnostics ? [diagnostics.listener] : []),
    ...(options.onEvent ? [options.onEvent] : []),
  ];
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
  /** Records an event Ralph publishes itself, in the events file and the event stream. */
  const publish = (e: PendingEvent, hat: string | null) => {
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
  };

  let final: Stop | undefined;
  try {
    const head = readGitHead(options.workspace);
    emit({
      type: 'loop.started',
      runId: state.run_id,
      resumed: prepared.resumed,
      workspace: options.workspace,
      backend: options.backend.name,
      maxIterations: limits.maxIterations,
      branch: head.branch,
      logFile,
      at: now(),
    });
    for (const message of prepared.notices) emit({ type: 'notice', level: 'info', message });
    if (!prepared.resumed) for (const e of state.pending_events) publish(e, null);
    if (config.tdd) {
      state.tdd ??= freshTddBook();
      const check = checkTddStateAtStart(options.workspace, config.tdd);
      if (check.warning) emit({ type: 'notice', level: 'warn', message: check.warning });
      if (check.fatal) final = stop('tdd_state', check.fatal);
    }
    const startView = readChecklist(options.workspace, config, state.start_milestone ?? null);
    if (config.completion.checklist && !prepared.resumed) {
      state.checklist = config.completion.checklist;
      state.start_milestone = currentMilestoneTitle(startView);
    }
    if (config.completion.checklist && !startView) {
      emit({
        type: 'notice',
        level: 'warn',
        message: `design document ${config.completion.checklist} not found; the loop cannot complete until it exists`,
      });
    } else if (startView && startView.progress.tasksTotal === 0) {
      emit({
        type: 'notice',
        level: 'warn',
        message: `${config.completion.checklist} has no \`- [ ]\` tasks; the loop cannot complete by checklist`,
      });
    }
    const marker = config.completion.marker;
    if (startView?.complete && condition !== 'promise') {
      final = stop(
        'completed',
        `every task in ${config.completion.checklist} is already checked: nothing to do`,
      );
    } else if (marker && markerReached(options.workspace, marker)) {
      final = stop(
        'completed',
        `${marker.file} already contains ${marker.text}: nothing to do (remove the marker if work remains)`,
      );
    }

    let first = true;
    while (final === undefined) {
      final = boundaryStop();
      if (final) break;
      final = await preIterationStop(first);
      first = false;
      if (final) break;
      if (state.idle) {
        final = await idle();
        if (final) break;
      }
      final = await runIteration();
      if (final) break;
      final = limitReached(counters(), limits);
      if (final) break;
      // Solo mode paces every iteration; with hats, hand-offs never wait (only the idle path does).
      if (!hatsMode && !state.idle) await sleepUnlessStopped(config.event_loop.cooldown_delay_seconds * 1000);
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
      progress: endProgress(),
    });
    log.close();
    diagnostics?.close();
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

  /** Checklist progress at the end of the run, with what this run completed. */
  function endProgress() {
    const end = readChecklist(options.workspace, config, state.start_milestone ?? null);
    if (!end) return undefined;
    const start = startProgress ?? end.progress;
    return {
      ...end.progress,
      tasksCompletedThisRun: Math.max(0, end.progress.tasksDone - start.tasksDone),
      milestonesCompletedThisRun: Math.max(0, end.progress.milestonesDone - start.milestonesDone),
    };
  }

  /** Checks made before every iteration: Ctrl-C, `ralph stop`, limits. */
  function boundaryStop(): Stop | undefined {
    if (options.signal?.aborted)
      return stop('interrupted', 'interrupted (Ctrl-C); resume with `ralph run --resume`');
    if (existsSync(paths.stopRequest)) {
      rmSync(paths.stopRequest, { force: true });
      return stop('cancelled', 'stopped by `ralph stop`');
    }
    return limitReached(counters(), limits);
  }

  function sleepUnlessStopped(ms: number): Promise<unknown> {
    if (ms <= 0) return Promise.resolve();
    return waitWhileIdle({
      workspace: options.workspace,
      watch: [],
      eventsFile,
      eventsOffset: Number.POSITIVE_INFINITY,
      cooldownMs: ms,
      maxWaitMs: Math.max(0, (limits.maxRuntimeMs ?? Number.POSITIVE_INFINITY) - elapsed()),
      signal: options.signal,
      stopFile: paths.stopRequest,
    });
  }

  /** Persistent idle path: no agent call until something changes or the cooldown heartbeat. */
  async function idle(): Promise<Stop | undefined> {
    const watch = config.event_loop.idle_watch;
    // Ralph's own lines are skipped; an event someone published meanwhile ends the idle at once.
    const meanwhile = collectEvents({
      eventsFile,
      offset: state.events_offset,
      streak: state.malformed_streak,
      iteration: null,
      hat: null,
      finalText: null,
      defaultSource: 'external',
    });
    state.events_offset = meanwhile.nextOffset;
    state.malformed_streak = meanwhile.streak;
    if (meanwhile.published.length > 0) {
      state.pending_events.push(...meanwhile.published);
      state.idle = false;
      return boundaryStop();
    }
    emit({
      type: 'loop.idle',
      iteration: state.iterations,
      watch,
      cooldownMs: config.event_loop.cooldown_delay_seconds * 1000,
    });
    const reason = await waitWhileIdle({
      workspace: options.workspace,
      watch,
      eventsFile,
      eventsOffset: state.events_offset,
      cooldownMs: config.event_loop.cooldown_delay_seconds * 1000,
      maxWaitMs: Math.max(0, (limits.maxRuntimeMs ?? Number.POSITIVE_INFINITY) - elapsed()),
      signal: options.signal,
      stopFile: paths.stopRequest,
    });
    emit({ type: 'loop.woke', iteration: state.iterations, reason });
    state.idle = false;
    persist();
    return boundaryStop();
  }

  async function runGateStep(
    iteration: number,
    hat: string | null,
    gate: GateResult['gate'],
    command: string,
    timeoutMs: number,
  ): Promise<GateResult> {
    emit({ type: 'gate.started', iteration, gate, command });
    const result = await runGate({
      gate,
      command,
      workspace: options.workspace,
      env: buildAgentEnv({
        base: options.env ?? process.env,
        eventsFile,
        ralphBin: RALPH_BIN,
        ralphBinDir: RALPH_BIN_DIR,
        workspace: options.workspace,
        iteration,
        hat,
        runId: state.run_id,
        extra: [config.cli.env],
      }),
      timeoutMs,
      killGraceMs: graceMs,
      signal: options.signal,
      onOutput: (text) => emit({ type: 'gate.output', iteration, gate, text }),
    });
    emit({ type: 'gate.finished', iteration, gate, summary: summarize(result), output: result.output });
    return result;
  }

  async function runTestsGate(iteration: number, hat: string | null): Promise<GateResult | undefined> {
    const tests = config.gates.tests;
    if (!tests) return undefined;
    const result = await runGateStep(iteration, hat, 'tests', tests.command, tests.timeout_seconds * 1000);
    if (tests.report_file) {
      writeFileAtomicSync(
        resolve(options.workspace, tests.report_file),
        testsReport(result, iteration, new Date(now())),
      );
    }
    return result;
  }

  function runValidateGate(iteration: number, hat: string | null, command: string): Promise<GateResult> {
    return runGateStep(iteration, hat, 'validate', command, config.gates.validate_timeout_seconds * 1000);
  }

  async function commitStep(
    iteration: number,
    hat: string | null,
    backendName: string,
    summary: string,
    before: string | null,
    tests: GateResult | undefined,
  ): Promise<string | null> {
    const files = await filesChanged(
      options.workspace,
      before,
      readGitHead(options.workspace).commit ?? null,
    );
    const testsLine = tests ? (tests.passed ? 'passing' : `failing (exit ${tests.exitCode})`) : null;
    const message = commitMessage({ summary, iteration, hat, backend: backendName, files, tests: testsLine });
    const made = await commitIteration(options.workspace, message);
    if (made) emit({ type: 'git.committed', iteration, commit: made, message });
    return made;
  }

  /** Pushes the current branch; returns an error message when every attempt failed. */
  async function pushStep(iteration: number): Promise<string | undefined> {
    const branch = readGitHead(options.workspace).branch;
    if (!branch || branch === '(detached)') return 'cannot push: HEAD is detached';
    try {
      await pushWithRetry(options.workspace, {
        remote: config.git.remote,
        branch,
        attempts: config.git.push_attempts,
        delayMs: config.git.push_retry_delay_seconds * 1000,
        onAttempt: (n, error) =>
          emit({
            type: 'notice',
            level: 'warn',
            message: `git push failed (attempt ${n}/${config.git.push_attempts}): ${error.message.split('\n')[0]}`,
          }),
      });
      emit({ type: 'git.pushed', iteration, remote: config.git.remote, branch });
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** Checks before every iteration: health (disk, git, specs, agent) and, with git, a clean tree. */
  async function preIterationStop(first: boolean): Promise<Stop | undefined> {
    const results = runHealthChecks({
      workspace: options.workspace,
      config,
      env: options.env ?? process.env,
    });
    if (first) emit({ type: 'preflight', checks: results });
    for (const r of results) {
      if (r.level === 'warn' && !warned.has(r.message)) {
        warned.add(r.message);
        emit({ type: 'notice', level: 'warn', message: r.message });
      }
    }
    const fatal = healthFatal(results);
    if (fatal) return stop('health_check', `health check failed (${fatal.check}): ${fatal.message}`);
    if (!first && requireClean(config)) {
      const dirty = await dirtyTreeMessage(options.workspace);
      if (dirty) return stop('dirty_tree', dirty);
    }
    return undefined;
  }

  /** One iteration; returns a Stop when the loop must end because of it. */
  async function runIteration(): Promise<Stop | undefined> {
    const number = state.current?.number ?? state.iterations + 1;

    // Events published from outside an iteration (e.g. `ralph emit` in another terminal).
    const external = collectEvents({
      eventsFile,
      offset: state.events_offset,
      streak: state.malformed_streak,
      iteration: null,
      hat: null,
      finalText: null,
      defaultSource: 'external',
    });
    state.events_offset = external.nextOffset;
    state.pending_events.push(...external.published);

    const route = selectHat(config.hats, state.pending_events, { activations: state.hat_activations });
    for (const hatId of route.exhausted)
      publish(
        { topic: `${hatId}.exhausted`, payload: null, source: 'max_activations', iteration: number },
        hatId,
      );
    // Ralph's own informational events (gate results, default_publishes) may well have no hat.
    const droppedFromAgent = route.unmatched.filter((e) => ['agent', 'tag', 'external'].includes(e.source));
    if (droppedFromAgent.length > 0 && hatsMode) {
      emit({
        type: 'notice',
        level: 'info',
        message: `no hat triggers on ${droppedFromAgent.map((e) => e.topic).join(', ')}; dropped`,
      });
    }
    const hatId = route.hatId;
    const hat = route.hat;
    const backend = hat?.backend ? resolveBackend(hat.backend, config) : options.backend;
    const hatArgs = hat?.args ?? hat?.backend_args ?? [];

    const context = readWorkspaceContext(config, paths);
    writeIterationMarker(options.workspace, config, number, new Date(now()));
    const view = readChecklist(options.workspace, config, state.start_milestone ?? null);
    const contextBlock = [
      view
        ? checklistContextBlock(
            options.workspace,
            config,
            view,
            number,
            limits.maxIterations,
            condition === 'promise' ? promise : null,
          )
        : '',
      state.tdd?.report_feedback ?? '',
    ]
      .filter((t) => t.length > 0)
      .join('\n\n');
    const prompt = assemblePrompt({
      context: contextBlock || null,
      base: options.prompt,
      completionPromise: promise,
      hat:
        hat && hatId
          ? {
              id: hatId,
              name: hat.name ?? hatId,
              instructions: [hat.instructions, ...hat.extra_instructions].join('\n'),
              publishes: hat.publishes,
            }
          : null,
      hatsMode,
      events: route.consumed,
      scratchpad: context.scratchpad,
      scratchpadBudget: SCRATCHPAD_BUDGET,
      memories: context.memories,
      readyTasks: context.readyTasks,
    });
    const invocation = backend.buildInvocation({
      prompt,
      config,
      workspace: options.workspace,
      extraArgs: [...hatArgs, ...extraArgs],
    });
    const startedAt = now();
    const headBefore = readGitHead(options.workspace);
    // Persisted once the agent's pid is known (onSpawn); a crash before that re-runs the same number anyway.
    state.current = {
      number,
      hat: hatId,
      started_at: new Date(startedAt).toISOString(),
      agent_pid: null,
      agent_start_time: null,
    };
    emit({
      type: 'iteration.started',
      iteration: number,
      maxIterations: limits.maxIterations,
      hat: hatId,
      backend: backend.name,
      elapsedMs: elapsed(),
      branch: headBefore.branch,
      startedAt,
      progress: view?.progress,
    });
    if (hatId)
      emit({
        type: 'hat.activated',
        iteration: number,
        hatId,
        hatName: hat?.name ?? hatId,
        triggeredBy: route.consumed.map((e) => e.topic),
      });
    emit({
      type: 'prompt.assembled',
      iteration: number,
      hat: hatId,
      prompt,
      bytes: Buffer.byteLength(prompt),
      scratchpad: context.scratchpad,
    });

    const iterationMs = (hat?.timeout ?? config.event_loop.iteration_timeout_seconds) * 1000;
    const runtimeLeft = (limits.maxRuntimeMs ?? Number.POSITIVE_INFINITY) - elapsed();
    const parser = backend.createParser();
    const run = await runAgent({
      iteration: number,
      invocation,
      parser,
      cwd: options.workspace,
      env: buildAgentEnv({
        base: options.env ?? process.env,
        eventsFile,
        ralphBin: RALPH_BIN,
        ralphBinDir: RALPH_BIN_DIR,
        workspace: options.workspace,
        iteration: number,
        hat: hatId,
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
    const finalText = parser.finalText();
    const promiseSeen = promiseFulfilled(finalText, promise, prompt);
    const verdict = judgeIteration(
      {
        exitCode: sup.exitCode,
        signal: sup.signal,
        killedBy: sup.killedBy,
        spawnError: sup.spawnError?.message,
        resultError: run.resultError,
        promiseSeen,
      },
      limits,
      counters(),
    );

    // What the agent published: `ralph emit` lines and `<event>` tags in its final text.
    const collected = collectEvents({
      eventsFile,
      offset: state.events_offset,
      streak: state.malformed_streak,
      iteration: number,
      hat: hatId,
      finalText: verdict.kind === 'aborted' ? null : finalText,
      defaultSource: 'agent',
    });
    state.events_offset = collected.nextOffset;
    state.malformed_streak = collected.streak;
    for (const m of collected.malformed) {
      emit({ type: 'event.malformed', iteration: number, line: m.line, error: m.error });
      publish(
        { topic: 'event.malformed', payload: `${m.error}: ${m.line}`, source: 'loop', iteration: number },
        hatId,
      );
    }
    for (const e of collected.published)
      emit({
        type: 'event.published',
        iteration: number,
        hat: hatId,
        topic: e.topic,
        payload: e.payload,
        source: e.source,
      });
    for (const e of collected.published)
      if (!state.seen_topics.includes(e.topic)) state.seen_topics.push(e.topic);

    let stopAfter: Stop | undefined;
    let completion: { accepted: boolean; reasons: string[] } | undefined;
    const agentOk = verdict.kind === 'success' || verdict.kind === 'complete';
    const gates: IterationRecord['gates'] = {};
    let commit: string | null = null;
    // The project's tests run after every successful agent run; failing tests block completion.
    const testsGate = agentOk && config.gates.tests ? await runTestsGate(number, hatId) : undefined;
    if (testsGate) gates.tests = summarize(testsGate);
    const tddStep =
      agentOk && config.tdd
        ? tddAfterIteration({
            workspace: options.workspace,
            tdd: config.tdd,
            iteration: number,
            tests: testsGate,
            summary: finalText,
            book: state.tdd ?? freshTddBook(),
            now: new Date(now()),
          })
        : undefined;
    if (tddStep) {
      state.tdd = tddStep.book;
      for (const message of tddStep.warnings) emit({ type: 'notice', level: 'warn', message });
    }
    const forcedFailure = tddStep?.forceFailure;
    const marker = config.completion.marker;
    const markerHit =
      agentOk &&
      ((marker !== undefined && markerReached(options.workspace, marker)) ||
        readChecklist(options.workspace, config, state.start_milestone ?? null)?.complete === true);
    if (verdict.kind === 'aborted') {
      // Re-run on --resume with the same events.
      if (state.current) state.current.agent_pid = null;
      state.pending_events = [...route.consumed, ...route.remaining, ...collected.published];
      stopAfter = verdict.stop;
    } else {
      state.iterations = Math.max(state.iterations, number);
      state.current = null;
      // Counted once the activation is over, so a crashed and re-run iteration counts once.
      if (hatId) state.hat_activations[hatId] = (state.hat_activations[hatId] ?? 0) + 1;
      state.consecutive_failures =
        verdict.kind === 'failure' || forcedFailure ? state.consecutive_failures + 1 : 0;
      const decision = decideEvents({
        iteration: number,
        hatsMode,
        hatId,
        hat,
        succeeded: (verdict.kind === 'success' || verdict.kind === 'complete') && !forcedFailure,
        published: collected.published,
        consumed: route.consumed,
        queued: route.remaining,
        promiseInOutput: outputPromiseCounts && promiseSeen,
        markerReached: markerHit,
        blockers: [
          ...(testsGate && !testsGate.passed
            ? [`the tests are failing (${testsGate.command}, exit ${testsGate.exitCode ?? 'killed'})`]
            : []),
          ...(tddStep?.completionBlockers ?? []),
        ],
        completionPromise: promise,
        persistent: config.event_loop.persistent,
        requiredEvents: config.event_loop.required_events,
        seenTopics: new Set(state.seen_topics),
        // Read again: the agent may have opened or closed tasks during the iteration.
        openTasks: countOpenTasks(config, paths),
        recoveries: state.recoveries,
      });
      for (const e of decision.injected) {
        publish(e, hatId);
        if (!state.seen_topics.includes(e.topic)) state.seen_topics.push(e.topic);
      }
      if (decision.stale.length > 0) {
        emit({
          type: 'notice',
          level: 'info',
          message: `ignoring stale events from the finished cycle: ${decision.stale.map((e) => e.topic).join(', ')}`,
        });
      }
      if (decision.completion.requested) {
        completion = { accepted: decision.completion.accepted, reasons: decision.completion.reasons };
        emit({
          type: 'completion.decided',
          iteration: number,
          accepted: decision.completion.accepted,
          reasons: decision.completion.reasons,
          persistent: decision.idle,
        });
      }
      state.pending_events = decision.pending;
      state.recoveries = decision.recoveries;
      state.idle = decision.idle;

      if (testsGate) {
        const ev = {
          topic: testsGate.passed ? 'tests.passed' : 'tests.failed',
          payload: testsGate.passed ? null : `exit ${testsGate.exitCode ?? 'killed'}: ${testsGate.command}`,
          source: 'gate',
          iteration: number,
        };
        publish(ev, hatId);
        if (!decision.complete && !decision.idle) state.pending_events.push(ev);
      }
      // TDD: the mode for the next iteration (red → engineering, green with creative tasks → creative).
      if (tddStep?.modeEvent && !decision.complete && !decision.idle) {
        const ev = { topic: tddStep.modeEvent, payload: null, source: 'tdd', iteration: number };
        publish(ev, hatId);
        state.pending_events.push(ev);
      }
      // Git and the validate hook: commit first so a fatal gate leaves the work committed locally.
      if (agentOk && config.git.commit) {
        commit = await commitStep(
          number,
          hatId,
          backend.name,
          finalText,
          headBefore.commit ?? null,
          testsGate,
        );
      }
      const validate = agentOk ? validateCommand(config, options.workspace) : undefined;
      const validateGate = validate ? await runValidateGate(number, hatId, validate) : undefined;
      if (validateGate) gates.validate = summarize(validateGate);
      const validateFailed = validateGate !== undefined && !validateGate.passed;
      const pushError = agentOk && config.git.push && !validateFailed ? await pushStep(number) : undefined;

      if (verdict.kind === 'limit') stopAfter = verdict.stop;
      else if (validateGate && validateFailed)
        stopAfter = stop(
          'validation_failed',
          `validation failed: \`${validateGate.command}\` ${validateGate.timedOut ? 'timed out' : `exited with ${validateGate.exitCode}`}; its output is in the log — fix it, then run ralph again${commit ? ` (this iteration's work is committed as ${commit.slice(0, 7)})` : ''}`,
        );
      else if (pushError) stopAfter = stop('push_failed', pushError);
      else if (tddStep?.stuck) stopAfter = stop('stuck', tddStep.stuck);
      else if (
        verdict.kind === 'failure' &&
        sup.killedBy === 'iteration_timeout' &&
        config.event_loop.on_iteration_timeout === 'stop'
      )
        stopAfter = stop(
          'iteration_timeout',
          `iteration timeout: the agent ran longer than ${iterationMs / 1000} s and was killed (on_iteration_timeout: stop); break the task into smaller ones, then run ralph again`,
        );
      else if (decision.complete)
        stopAfter = stop(
          'completed',
          markerHit
            ? marker && markerReached(options.workspace, marker)
              ? `${marker.file} contains ${marker.text}`
              : `${config.completion.checklist}: ${condition === 'milestone' ? `milestone "${state.start_milestone}" is complete` : 'every task is checked'}`
            : `completion promise "${promise}" accepted`,
        );
      else if (decision.giveUp) stopAfter = stop('no_events', decision.giveUp);
      else if (state.malformed_streak >= MAX_MALFORMED) {
        stopAfter = stop(
          'malformed_events',
          `${state.malformed_streak} malformed lines in a row in ${state.events_file}; each line must be a JSON object with a "topic" (use \`ralph emit\`)`,
        );
      } else if (sup.spawnError && (sup.spawnError as NodeJS.ErrnoException).code === 'ENOENT') {
        stopAfter = stop(
          'error',
          `agent command not found: ${invocation.command} — install it or fix cli.command / cli.backend`,
        );
      } else if (collected.published.length > 0 && !decision.idle) {
        const signature = eventSignature(hatId, collected.published);
        state.signature_repeats = signature === state.last_signature ? state.signature_repeats + 1 : 1;
        state.last_signature = signature;
        if (state.signature_repeats >= STALE_REPEATS) {
          stopAfter = stop(
            'stale_loop',
            `stale loop: ${hatId ?? 'the agent'} published the same events ${STALE_REPEATS} times in a row (${signature.split('|')[1]})`,
          );
        }
      } else if (decision.idle) {
        state.last_signature = null;
        state.signature_repeats = 0;
      }
    }

    const finishedAt = now();
    const filesChangedList = inRepo
      ? await filesChanged(
          options.workspace,
          headBefore.commit ?? null,
          readGitHead(options.workspace).commit ?? null,
        )
      : null;
    const record: IterationRecord = {
      run_id: state.run_id,
      iteration: number,
      hat: hatId,
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
      events: collected.published.map((e) => e.topic),
      files_changed: filesChangedList,
      commit,
      gates,
      verdict: completion?.accepted
        ? 'complete'
        : forcedFailure
          ? 'failure'
          : verdict.kind === 'complete'
            ? 'success'
            : verdict.kind,
      reason:
        verdict.kind === 'failure'
          ? verdict.why
          : forcedFailure
            ? forcedFailure
            : verdict.kind === 'aborted' || verdict.kind === 'limit'
              ? verdict.stop.message
              : completion && !completion.accepted
                ? `completion rejected: ${completion.reasons.join('; ')}`
                : null,
      consecutive_failures: state.consecutive_failures,
      ...(tddStep
        ? {
            report_missing: tddStep.reportMissing,
            scope_violations: tddScopeViolations(config, filesChangedList),
          }
        : {}),
    };
    appendFileSync(recordsFile, `${JSON.stringify(record)}\n`);
    persist();
    emit({
      type: 'iteration.finished',
      record,
      totals: { costUsd: state.cost_usd, tokens: state.tokens.total },
    });
    return stopAfter;
  }
}
