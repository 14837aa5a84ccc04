import { resolve } from 'node:path';
import type { HookPhaseEvent } from '../../config/schema/hooks.ts';
import type { HookDisposition } from '../../observe/events/hook-events.ts';
import { runCommand } from '../../process/command-runner.ts';
import { type RunContext, ralphEnv, runtimeLeftMs } from '../context/run-context.ts';
import { interruptedStop, type Stop, stop } from '../decide/limits.ts';
import {
  hookDisposition,
  hookFailure,
  hookPayload,
  hooksAt,
  type JsonObject,
  mergeMetadata,
  parseMutation,
  phaseVerdict,
  RETRY_BACKOFF_MS,
  type ResolvedHook,
} from './hook-plan.ts';

/** Where in the loop a phase-event fires: what its payload says. */
export interface HookPoint {
  iteration: number;
  activeHat?: string | null;
  selectedHat?: string | null;
  terminationReason?: string | null;
  humanInteract?: JsonObject | null;
}

interface HookOutcome {
  hook: ResolvedHook;
  disposition: HookDisposition;
  failure: string | null;
  output: string;
}

/** The loop's own waits a hook may need, given by the run (they live above this layer). */
export interface HookWaits {
  /** Pauses the loop as `ralph pause` does until `ralph resume`; a Stop when it ended meanwhile. */
  suspend(ctx: RunContext): Promise<Stop | undefined>;
  /** Waits `ms` unless the loop is stopped or interrupted meanwhile. */
  sleep(ctx: RunContext, ms: number): Promise<unknown>;
}

const waitsOf = new WeakMap<RunContext, HookWaits>();

/** Gives the run's hooks the loop's waits (once, when the run context exists). */
export function armHooks(ctx: RunContext, waits: HookWaits): void {
  waitsOf.set(ctx, waits);
}

// What mutating hooks added, for the later hooks of this run (ralph-orchestrator keeps it in memory too).
const metadataOf = new WeakMap<RunContext, JsonObject>();

/**
 * Runs the hooks of `phaseEvent` one after another (each sees the same payload), then applies the
 * phase's verdict: a `block` ends the run (`hook_blocked`), a `suspend` pauses it until `ralph
 * resume` (its `suspend_mode`), Ctrl-C or `ralph stop --now` kill a running hook and end the run.
 */
export async function runHookPhase(
  ctx: RunContext,
  phaseEvent: HookPhaseEvent,
  point: HookPoint,
  how: { reportOnly?: boolean } = {},
): Promise<Stop | undefined> {
  const hooks = hooksAt(ctx.config.hooks, phaseEvent);
  if (hooks.length === 0) return undefined;
  const payload = JSON.stringify(
    hookPayload({
      phaseEvent,
      at: new Date(ctx.now()),
      runId: ctx.state.run_id,
      workspace: ctx.options.workspace,
      pid: process.pid,
      iteration: point.iteration,
      maxIterations: ctx.limits.maxIterations,
      activeHat: point.activeHat ?? null,
      selectedHat: point.selectedHat ?? null,
      terminationReason: point.terminationReason ?? null,
      humanInteract: point.humanInteract ?? null,
      metadata: metadataOf.get(ctx) ?? {},
    }),
  );
  const outcomes: HookOutcome[] = [];
  for (const hook of hooks) {
    const outcome = await runWithBackoff(ctx, hook, payload, point);
    if (ctx.options.signal?.aborted) return interruptedStop();
    outcomes.push(outcome);
  }
  const verdict = phaseVerdict(outcomes);
  // After the run's end is saved there is nothing left to block or suspend: hook.finished says it.
  if (how.reportOnly) return undefined;
  if (verdict.kind === 'block') return blocked(verdict.outcome);
  if (verdict.kind === 'suspend') return suspend(ctx, verdict.outcome, payload, point);
  return undefined;
}

function blocked({ hook, failure, output }: HookOutcome): Stop {
  const said = output.trim() ? `: ${output.trim()}` : '';
  return stop('hook_blocked', `hook ${hook.name} (${hook.phaseEvent}) blocked the run (${failure})${said}`);
}

/** `on_error: suspend`: paused like `ralph pause`; `wait_then_retry` runs the hook once more after each resume. */
async function suspend(
  ctx: RunContext,
  outcome: HookOutcome,
  payload: string,
  point: HookPoint,
): Promise<Stop | undefined> {
  let last = outcome;
  for (let attempt = 2; ; attempt++) {
    ctx.emit({
      type: 'notice',
      level: 'warn',
      message: `hook ${last.hook.name} (${last.hook.phaseEvent}) suspended the loop (${last.failure}); \`ralph resume\` goes on, \`ralph stop\` ends the run`,
    });
    const waits = waitsOf.get(ctx);
    // A context no run armed (a library caller's own) cannot wait: the phase is blocked instead.
    if (!waits) return blocked(last);
    const ended = await waits.suspend(ctx);
    if (ended) return ended;
    if (last.hook.suspendMode !== 'wait_then_retry' || last.disposition === 'pass') return undefined;
    last = await runOnce(ctx, last.hook, payload, point, attempt);
    if (ctx.options.signal?.aborted) return interruptedStop();
    if (last.disposition === 'pass') return undefined;
  }
}

/** `retry_backoff`: a suspending failure runs again after each of the waits; the last outcome stands. */
async function runWithBackoff(
  ctx: RunContext,
  hook: ResolvedHook,
  payload: string,
  point: HookPoint,
): Promise<HookOutcome> {
  let outcome = await runOnce(ctx, hook, payload, point, 1);
  if (hook.suspendMode !== 'retry_backoff') return outcome;
  for (const [i, ms] of RETRY_BACKOFF_MS.entries()) {
    if (outcome.disposition !== 'suspend' || ctx.options.signal?.aborted) break;
    await waitsOf.get(ctx)?.sleep(ctx, ms);
    outcome = await runOnce(ctx, hook, payload, point, i + 2);
  }
  return outcome;
}

/** One run of a hook through the one command runner: its group killed at its timeout or the run's end. */
async function runOnce(
  ctx: RunContext,
  hook: ResolvedHook,
  payload: string,
  point: HookPoint,
  attempt: number,
): Promise<HookOutcome> {
  const base = { iteration: point.iteration, phaseEvent: hook.phaseEvent, name: hook.name, attempt };
  ctx.emit({ type: 'hook.started', ...base, command: hook.command.join(' ') });
  const started = ctx.now();
  const [command, ...args] = hook.command;
  const env = ralphEnv(ctx, point.iteration, point.activeHat ?? null, [
    hook.env,
    { RALPH_HOOK_NAME: hook.name, RALPH_HOOK_PHASE_EVENT: hook.phaseEvent },
  ]);
  const result = await runCommand(command ?? '', args, {
    cwd: resolve(ctx.options.workspace, hook.cwd ?? '.'),
    env,
    input: payload,
    // Its time is the run's too: never past max_runtime_seconds.
    timeoutMs: Math.max(1, Math.min(hook.timeoutMs, runtimeLeftMs(ctx))),
    signal: ctx.options.signal,
    killGraceMs: ctx.graceMs,
    maxOutputChars: hook.maxOutputBytes,
  });
  const mutation =
    hook.mutate && result.exitCode === 0 && !result.killedBy ? parseMutation(result.stdout) : undefined;
  const facts = {
    exitCode: result.exitCode,
    timedOut: result.killedBy === 'timeout',
    spawnError: result.spawnError?.message,
    mutationError: mutation && 'error' in mutation ? mutation.error : undefined,
  };
  if (mutation && 'metadata' in mutation)
    metadataOf.set(ctx, mergeMetadata(metadataOf.get(ctx) ?? {}, hook.name, mutation.metadata));
  const disposition = hookDisposition(hook.onError, facts);
  const failure = hookFailure(facts);
  const output = ctx.redact([result.stdout, result.stderr].filter((s) => s.trim() !== '').join('\n'));
  ctx.emit({
    type: 'hook.finished',
    ...base,
    disposition,
    exitCode: result.exitCode,
    timedOut: facts.timedOut,
    durationMs: ctx.now() - started,
    failure,
    output,
    truncated: result.truncated,
  });
  return { hook, disposition, failure, output };
}
