import { selectHat } from '../../routing/select-hat.ts';
import { setStatus } from '../../state/loop-state/run-status.ts';
import { dirtyTreeMessage, requireClean } from '../commit/workspace-git.ts';
import { noteEventsRead, queueEvents, setIdle, setNextScan } from '../context/event-queue.ts';
import { type RunContext, runtimeLeftMs } from '../context/run-context.ts';
import { noteElapsed, noteLimitWarnings, parkUntil } from '../context/spend-and-limits.ts';
import { projectedOverrun, projectNext } from '../decide/budget-projection.ts';
import { limitWarnings } from '../decide/limit-warnings.ts';
import { interruptedStop, limitReached, type Stop, stop } from '../decide/limits.ts';
import { readExternalEvents } from '../iteration/collect-events.ts';
import { healthFatal, runHealthChecks } from '../readiness/health.ts';
import { startChecks } from '../readiness/preflight.ts';
import { reposDirtyMessage } from '../readiness/repo-set.ts';
import {
  clearHumanTimeout,
  consumeControl,
  controlPending,
  takeStopRequest,
} from '../steering/control-inbox.ts';
import { issuesPreflight } from '../workflow-steps/issue-tasks.ts';
import { forgePreflight } from '../workflow-steps/milestone-prs.ts';
import { sleepUntilCommand, waitWhileIdle } from './idle-wait.ts';

/** Checks made before every iteration: Ctrl-C, `ralph stop`, a human who did not answer, limits. */
export function boundaryStop(ctx: RunContext): Stop | undefined {
  const { state } = ctx;
  ctx.holdLock();
  if (ctx.options.signal?.aborted) return interruptedStop();
  if (controlPending(ctx)) consumeControl(ctx);
  if (state.stop_requested) {
    takeStopRequest(state);
    return stop('cancelled', 'stopped by `ralph stop`');
  }
  if (state.human_timeout) {
    const message = state.human_timeout;
    clearHumanTimeout(state);
    return stop('human_timeout', message);
  }
  warnOnLimits(ctx);
  return limitReached(ctx.counters(), ctx.limits) ?? projectedStop(ctx);
}

/** Budget foresight: an iteration projected to cross max_cost_usd or max_tokens is not started. */
function projectedStop(ctx: RunContext): Stop | undefined {
  const { state, config } = ctx;
  if (ctx.limits.maxCostUsd === undefined && ctx.limits.maxTokens === undefined) return undefined;
  const next = selectHat(config.hats, state.pending_events, { activations: state.hat_activations });
  const backend = next.hat?.backend ?? ctx.options.backend.name;
  const projected = projectNext(state.usage_samples ?? [], { hat: next.hatId, backend });
  const over = projectedOverrun(ctx.counters(), ctx.limits, projected);
  return over ? stop(over.reason, over.message) : undefined;
}

/** Announces each limit once as it passes 50, 80 and 95 % (console, log, notifications). */
function warnOnLimits(ctx: RunContext): void {
  const given = limitWarnings(ctx.counters(), ctx.limits, ctx.state.limit_warnings ?? {});
  noteLimitWarnings(ctx.state, given);
  for (const w of given) ctx.emit({ type: 'limit.warning', ...w });
}

/**
 * The stop after an iteration: an interrupt that came while it was being finished (gates, commit,
 * record) outranks every stop but completion, so Ctrl-C always ends as `interrupted` (exit 130).
 */
export function stopAfterFinishing(ctx: RunContext, after: Stop | undefined): Stop | undefined {
  if (!ctx.options.signal?.aborted || after?.reason === 'completed' || after?.reason === 'interrupted')
    return after;
  return interruptedStop();
}

/** Checks before every iteration: health (disk, git, specs, agent) and, with git, a clean tree. */
export async function preIterationStop(ctx: RunContext, first: boolean): Promise<Stop | undefined> {
  const { options, config, warned, emit } = ctx;
  const env = options.env ?? process.env;
  // At the start, also what would fail only after the first iteration: gate commands, a push remote.
  const results = first
    ? [
        ...(await startChecks(options.workspace, config, env, ctx.inRepo)),
        ...(await forgePreflight(ctx)),
        ...(await issuesPreflight({ workspace: options.workspace, config, env, loopId: ctx.state.run_id })),
      ]
    : runHealthChecks({ workspace: options.workspace, config, env });
  if (first) emit({ type: 'preflight', checks: results });
  for (const r of results) {
    if (r.level === 'warn' && !warned.has(r.message)) {
      warned.add(r.message);
      emit({ type: 'notice', level: 'warn', message: r.message });
    }
  }
  const fatal = healthFatal(results);
  if (fatal) return stop('health_check', `health check failed (${fatal.check}): ${fatal.message}`);
  // Changes a human rejected stay uncommitted on purpose: the next iteration builds on them.
  if (!first && requireClean(config) && !ctx.state.uncommitted_changes) {
    const dirty = config.repos
      ? await reposDirtyMessage(options.workspace, config)
      : await dirtyTreeMessage(options.workspace, ctx.pendingChanges);
    if (dirty) return stop('dirty_tree', dirty);
  }
  return undefined;
}

/** The solo-mode cooldown: waits `ms` unless the loop is interrupted or stopped meanwhile. */
export function sleepUnlessStopped(ctx: RunContext, ms: number): Promise<unknown> {
  return sleepUntilCommand(
    {
      workspace: ctx.options.workspace,
      maxWaitMs: runtimeLeftMs(ctx),
      signal: ctx.options.signal,
      inbox: ctx.paths.inbox,
      inboxOffset: ctx.state.control?.offset ?? 0,
    },
    ms,
  );
}

/** Persistent idle path: no agent call until something changes or the cooldown heartbeat. */
export async function waitForWork(ctx: RunContext): Promise<Stop | undefined> {
  const { config, state, emit } = ctx;
  const watch = config.event_loop.idle_watch;
  // Ralph's own lines are skipped; an event someone published meanwhile ends the idle at once.
  const meanwhile = readExternalEvents(ctx);
  noteEventsRead(state, meanwhile);
  if (meanwhile.published.length > 0) {
    queueEvents(state, meanwhile.published);
    setIdle(state, false);
    return boundaryStop(ctx);
  }
  const cooldownMs = config.event_loop.cooldown_delay_seconds * 1000;
  // `ralph status` from another terminal says when the next scan comes.
  setNextScan(state, cooldownMs > 0 ? ctx.now() + cooldownMs : null);
  ctx.persist();
  emit({ type: 'loop.idle', iteration: state.iterations, watch, cooldownMs });
  const reason = await waitWhileIdle({
    workspace: ctx.options.workspace,
    watch,
    eventsFile: ctx.eventsFile,
    eventsOffset: state.events_offset,
    cooldownMs: config.event_loop.cooldown_delay_seconds * 1000,
    maxWaitMs: runtimeLeftMs(ctx),
    signal: ctx.options.signal,
    inbox: ctx.paths.inbox,
    inboxOffset: state.control?.offset ?? 0,
  });
  emit({ type: 'loop.woke', iteration: state.iterations, reason });
  setIdle(state, false);
  setNextScan(state, null);
  ctx.persist();
  return boundaryStop(ctx);
}

/**
 * The one countdown of a parked run (a rate or usage limit between iterations, a spent GitHub quota
 * mid-iteration): a `loop.parked` event each minute until `parked.until`, bounded by the runtime
 * limit; `afterSleep` runs after each sleep (the between-iterations wait saves the state there, the
 * mid-iteration one may not). A stop or Ctrl-C ends the wait with its Stop.
 */
export async function parkCountdown(
  ctx: RunContext,
  parked: { until: number; message: string },
  afterSleep: () => void = () => {},
): Promise<Stop | undefined> {
  const { state } = ctx;
  for (let first = true; ; first = false) {
    const remainingMs = parked.until - ctx.now();
    if (remainingMs <= 0) return undefined;
    ctx.emit({
      type: 'loop.parked',
      iteration: state.current?.number ?? state.iterations + 1,
      until: parked.until,
      remainingMs,
      message: parked.message,
      first,
    });
    await sleepUnlessStopped(ctx, Math.min(remainingMs, 60_000, runtimeLeftMs(ctx)));
    afterSleep();
    const stopNow = boundaryStop(ctx);
    if (stopNow) return stopNow;
  }
}

/**
 * Waits out a rate or usage limit (bounded by the runtime limit), announcing a countdown every
 * minute; `ralph stop` and Ctrl-C end the wait. The parked iteration then runs again.
 */
export async function waitWhileParked(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  const parked = state.parked;
  if (!parked) return undefined;
  const stopNow = await parkCountdown(ctx, parked, () => {
    noteElapsed(state, ctx.elapsed());
    ctx.persist();
  });
  if (stopNow) return stopNow;
  parkUntil(state, null);
  ctx.persist();
  return undefined;
}

/** `ralph pause`: waits before the next iteration until `ralph resume`, `ralph stop` or Ctrl-C. */
export async function waitWhilePaused(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  if (!state.paused) return undefined;
  setStatus(state, 'paused');
  ctx.persist();
  ctx.emit({ type: 'loop.paused', iteration: state.iterations });
  while (state.paused) {
    // Wakes on a command; once a minute regardless, for the runtime limit.
    await sleepUnlessStopped(ctx, 60_000);
    noteElapsed(state, ctx.elapsed());
    const end = boundaryStop(ctx);
    if (end) return end;
  }
  setStatus(state, 'running');
  ctx.persist();
  ctx.emit({ type: 'loop.resumed', iteration: state.iterations, from: 'paused' });
  return undefined;
}
