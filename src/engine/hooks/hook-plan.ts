import type { HookPhaseEvent, HooksConfig } from '../../config/schema/hooks.ts';
import type { HookDisposition } from '../../observe/events/hook-events.ts';
import type { StopReason } from '../../observe/events/run-events.ts';

/** A hook of a phase-event with the defaults filled in, as it runs. */
export interface ResolvedHook {
  phaseEvent: HookPhaseEvent;
  name: string;
  command: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  onError: 'warn' | 'block' | 'suspend';
  suspendMode: 'wait_for_resume' | 'retry_backoff' | 'wait_then_retry';
  mutate: boolean;
}

/** The hooks that fire at `phaseEvent`, in declaration order (none while `hooks.enabled` is false). */
export function hooksAt(config: HooksConfig, phaseEvent: HookPhaseEvent): ResolvedHook[] {
  if (!config.enabled) return [];
  const d = config.defaults;
  return (config.events[phaseEvent] ?? []).map((h) => ({
    phaseEvent,
    name: h.name,
    command: h.command,
    cwd: h.cwd,
    env: h.env,
    timeoutMs: (h.timeout_seconds ?? d.timeout_seconds) * 1000,
    maxOutputBytes: h.max_output_bytes ?? d.max_output_bytes,
    onError: h.on_error,
    suspendMode: h.suspend_mode ?? d.suspend_mode,
    mutate: h.mutate.enabled,
  }));
}

/** How one run of a hook went, as far as its disposition cares. */
export interface HookRunFacts {
  exitCode: number | null;
  timedOut: boolean;
  /** It could not start (no such program, a missing cwd). */
  spawnError: string | undefined;
  /** Its `mutate` output was not `{"metadata": {…}}` (undefined: fine or not mutating). */
  mutationError: string | undefined;
}

/** Why a run failed, in words, or null when it passed. */
export function hookFailure(run: HookRunFacts): string | null {
  if (run.spawnError !== undefined) return `could not start: ${run.spawnError}`;
  if (run.timedOut) return 'timed out';
  if (run.exitCode !== 0) return run.exitCode === null ? 'killed' : `exit ${run.exitCode}`;
  return run.mutationError ?? null;
}

/** A passing run passes; any failure takes the hook's `on_error`. */
export function hookDisposition(onError: ResolvedHook['onError'], run: HookRunFacts): HookDisposition {
  return hookFailure(run) === null ? 'pass' : onError;
}

/** A phase's verdict: the first block stops it, else the first suspend waits, else it goes on. */
export function phaseVerdict<T extends { disposition: HookDisposition }>(
  outcomes: readonly T[],
): { kind: 'go' } | { kind: 'block'; outcome: T } | { kind: 'suspend'; outcome: T } {
  const block = outcomes.find((o) => o.disposition === 'block');
  if (block) return { kind: 'block', outcome: block };
  const suspend = outcomes.find((o) => o.disposition === 'suspend');
  return suspend ? { kind: 'suspend', outcome: suspend } : { kind: 'go' };
}

/** The waits before each automatic retry of `retry_backoff` (ralph-orchestrator's). */
export const RETRY_BACKOFF_MS = [100, 200, 400] as const;

/** A run's end fires the `loop.complete` pair when it completed, the `loop.error` pair otherwise. */
export function terminationPhases(reason: StopReason): [HookPhaseEvent, HookPhaseEvent] {
  return reason === 'completed' || reason === 'metric_target'
    ? ['pre.loop.complete', 'post.loop.complete']
    : ['pre.loop.error', 'post.loop.error'];
}

/** True when an iteration's published topics open the `plan.created` pair (any `plan.*` topic). */
export function publishesPlan(topics: readonly string[]): boolean {
  return topics.some((t) => t.startsWith('plan.'));
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * A mutating hook's stdout: exactly `{"metadata": {…}}`, else an error (ralph-orchestrator's
 * contract: metadata only; prompt, events and config cannot be changed by a hook).
 */
export function parseMutation(stdout: string): { metadata: JsonObject } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout.trim());
  } catch (error) {
    return { error: `mutation stdout is not valid JSON: ${(error as Error).message}` };
  }
  if (!isObject(parsed)) return { error: 'mutation payload must be a JSON object' };
  const keys = Object.keys(parsed);
  if (keys.length !== 1 || keys[0] !== 'metadata')
    return {
      error: `mutation payload supports only {"metadata": {...}}; found keys: ${keys.join(', ') || 'none'}`,
    };
  const metadata = parsed.metadata;
  if (!isObject(metadata)) return { error: "mutation payload key 'metadata' must contain a JSON object" };
  return { metadata: metadata as JsonObject };
}

/** The accumulated metadata with `name`'s object in its namespace (`hook_metadata.<name>`), replacing its last. */
export function mergeMetadata(accumulated: JsonObject, name: string, metadata: JsonObject): JsonObject {
  const space = isObject(accumulated.hook_metadata) ? (accumulated.hook_metadata as JsonObject) : {};
  return { ...accumulated, hook_metadata: { ...space, [name]: metadata } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a phase-event's payload says about the loop at that point. */
export interface HookPayloadInput {
  phaseEvent: HookPhaseEvent;
  at: Date;
  runId: string;
  workspace: string;
  pid: number;
  iteration: number;
  maxIterations: number;
  activeHat: string | null;
  selectedHat: string | null;
  terminationReason: string | null;
  humanInteract: JsonObject | null;
  metadata: JsonObject;
}

/** The JSON a hook reads on stdin: ralph-orchestrator's payload (schema_version 1), field for field. */
export function hookPayload(p: HookPayloadInput): JsonObject {
  const [phase, ...rest] = p.phaseEvent.split('.');
  return {
    schema_version: 1,
    phase: phase ?? '',
    event: rest.join('.'),
    phase_event: p.phaseEvent,
    timestamp: p.at.toISOString(),
    loop: { id: p.runId, is_primary: true, workspace: p.workspace, repo_root: p.workspace, pid: p.pid },
    iteration: { current: p.iteration, max: p.maxIterations },
    context: {
      active_hat: p.activeHat ?? 'ralph',
      selected_hat: p.selectedHat,
      selected_task: null,
      termination_reason: p.terminationReason,
      human_interact: p.humanInteract,
    },
    metadata: { accumulated: p.metadata },
  };
}
