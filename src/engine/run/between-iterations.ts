import { existsSync, rmSync } from 'node:fs';
import { healthFatal, runHealthChecks } from '../../gates/health.ts';
import type { RunContext } from '../context/run-context.ts';
import { interruptedStop, limitReached, type Stop, stop } from '../decide/limits.ts';
import { readExternalEvents } from '../iteration/collect-events.ts';
import { dirtyTreeMessage, requireClean } from '../steps/git-step.ts';
import { startChecks } from '../steps/preflight.ts';
import { waitWhileIdle } from './idle-wait.ts';

/** Checks made before every iteration: Ctrl-C, `ralph stop`, limits. */
export function boundaryStop(ctx: RunContext): Stop | undefined {
  if (ctx.options.signal?.aborted) return interruptedStop();
  if (existsSync(ctx.paths.stopRequest)) {
    rmSync(ctx.paths.stopRequest, { force: true });
    return stop('cancelled', 'stopped by `ralph stop`');
  }
  return limitReached(ctx.counters(), ctx.limits);
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
  const results = runHealthChecks({ workspace: options.workspace, config, env });
  // At the start, also what would fail only after the first iteration: gate commands, a push remote.
  if (first) results.push(...(await startChecks(options.workspace, config, env)));
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
    const dirty = await dirtyTreeMessage(options.workspace, ctx.pendingChanges);
    if (dirty) return stop('dirty_tree', dirty);
  }
  return undefined;
}

/** How long a wait may last without crossing the runtime limit. */
function runtimeLeftMs(ctx: RunContext): number {
  return Math.max(0, (ctx.limits.maxRuntimeMs ?? Number.POSITIVE_INFINITY) - ctx.elapsed());
}

/** The solo-mode cooldown: waits `ms` unless the loop is interrupted or stopped meanwhile. */
export function sleepUnlessStopped(ctx: RunContext, ms: number): Promise<unknown> {
  if (ms <= 0) return Promise.resolve();
  return waitWhileIdle({
    workspace: ctx.options.workspace,
    watch: [],
    eventsFile: ctx.eventsFile,
    eventsOffset: Number.POSITIVE_INFINITY,
    cooldownMs: ms,
    maxWaitMs: runtimeLeftMs(ctx),
    signal: ctx.options.signal,
    stopFile: ctx.paths.stopRequest,
  });
}

/** Persistent idle path: no agent call until something changes or the cooldown heartbeat. */
export async function waitForWork(ctx: RunContext): Promise<Stop | undefined> {
  const { config, state, emit } = ctx;
  const watch = config.event_loop.idle_watch;
  // Ralph's own lines are skipped; an event someone published meanwhile ends the idle at once.
  const meanwhile = readExternalEvents(ctx);
  state.events_offset = meanwhile.nextOffset;
  state.malformed_streak = meanwhile.streak;
  if (meanwhile.published.length > 0) {
    state.pending_events.push(...meanwhile.published);
    state.idle = false;
    return boundaryStop(ctx);
  }
  const cooldownMs = config.event_loop.cooldown_delay_seconds * 1000;
  // `ralph status` from another terminal says when the next scan comes.
  state.idle_next_scan_at = cooldownMs > 0 ? ctx.now() + cooldownMs : null;
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
    stopFile: ctx.paths.stopRequest,
  });
  emit({ type: 'loop.woke', iteration: state.iterations, reason });
  state.idle = false;
  state.idle_next_scan_at = null;
  ctx.persist();
  return boundaryStop(ctx);
}

/**
 * Waits out a rate or usage limit (bounded by the runtime limit), announcing a countdown every
 * minute; `ralph stop` and Ctrl-C end the wait. The parked iteration then runs again.
 */
export async function waitWhileParked(ctx: RunContext): Promise<Stop | undefined> {
  const { state } = ctx;
  const parked = state.parked;
  if (!parked) return undefined;
  for (;;) {
    const remainingMs = parked.until - ctx.now();
    if (remainingMs <= 0) break;
    ctx.emit({
      type: 'loop.parked',
      iteration: state.current?.number ?? state.iterations + 1,
      until: parked.until,
      remainingMs,
      message: parked.message,
    });
    const chunk = Math.min(remainingMs, 60_000, runtimeLeftMs(ctx));
    await sleepUnlessStopped(ctx, chunk);
    state.elapsed_ms = ctx.elapsed();
    ctx.persist();
    const stopNow = boundaryStop(ctx);
    if (stopNow) return stopNow;
  }
  state.parked = null;
  ctx.persist();
  return undefined;
}
