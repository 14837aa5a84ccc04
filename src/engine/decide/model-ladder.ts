import type { HatConfig, RalphConfig } from '../../config/schema.ts';
import type { LadderRung } from '../../state/loop-state.ts';

/** A model ladder as it applies to one iteration: its models (cheapest first) and when to move. */
export interface LadderSpec {
  /** Whose ladder: `cli`, or `hats.<id>` for a hat with its own `models`. */
  owner: string;
  models: readonly string[];
  escalateAfter: number;
  /** Absent: never down. */
  descendAfter: number | undefined;
}

/** What moves a task one rung up (docs/concepts/models.md). */
export type LadderSignal = 'failure' | 'stuck' | 'gate_failed' | 'completion_rejected';

/** How a finished iteration went, as the ladder reads it. */
export interface LadderOutcome {
  /** The iteration failed (the agent, or a check that counts as its failure). */
  failed: boolean;
  /** The same failure or event signature as the iteration before: the model repeats itself. */
  stuck: boolean;
  gateFailed: boolean;
  completionRejected: boolean;
}

/** The model an iteration runs on, its rung, and why it is there. */
export interface ModelChoice {
  model: string;
  rung: number;
  rungs: number;
  reason: string;
}

/** Rung states kept per scope in state.json; the oldest are dropped past this many. */
export const MAX_LADDER_SCOPES = 64;

/**
 * The ladder of an iteration (pure): the hat's own `models`, else `cli.models` when the hat runs on
 * the loop's backend (a hat on another backend runs that CLI's own default), else none.
 */
export function ladderFor(
  config: Pick<RalphConfig, 'cli'>,
  hatId: string | null,
  hat: HatConfig | null,
): LadderSpec | undefined {
  const { cli } = config;
  if (hatId && hat?.models)
    return {
      owner: `hats.${hatId}`,
      models: hat.models,
      escalateAfter: hat.escalate_after ?? cli.escalate_after,
      descendAfter: hat.descend_after ?? cli.descend_after,
    };
  const onLoopBackend = hat?.backend === undefined || hat.backend === cli.backend;
  if (!cli.models || !onLoopBackend) return undefined;
  return {
    owner: 'cli',
    models: cli.models,
    escalateAfter: cli.escalate_after,
    descendAfter: cli.descend_after,
  };
}

/** The key a rung is kept under: the ladder's owner and the task, milestone or run it is for. */
export function ladderKey(spec: LadderSpec, scope: string): string {
  return `${spec.owner}@${scope}`;
}

/** A scope's rung before its first iteration. */
export const firstRung = (): LadderRung => ({ rung: 0, failures: 0, successes: 0, reason: null });

/** The model the next iteration of a scope runs on (pure); the rung is clamped to the ladder. */
export function modelChoice(spec: LadderSpec, at: LadderRung | undefined, scope: string): ModelChoice {
  const top = spec.models.length - 1;
  const rung = Math.min(Math.max(at?.rung ?? 0, 0), top);
  return {
    model: spec.models[rung] as string,
    rung,
    rungs: spec.models.length,
    reason: at?.reason ?? `first rung for ${scope}`,
  };
}

/** The signals of an outcome, in the order a reason names them. */
export function ladderSignals(o: LadderOutcome): LadderSignal[] {
  const out: LadderSignal[] = [];
  if (o.failed) out.push('failure');
  if (o.stuck) out.push('stuck');
  if (o.gateFailed) out.push('gate_failed');
  if (o.completionRejected) out.push('completion_rejected');
  return out;
}

const SIGNAL_WORDS: Record<Exclude<LadderSignal, 'failure'>, string> = {
  stuck: 'a stuck signature',
  gate_failed: 'a failed gate',
  completion_rejected: 'a rejected completion',
};

/**
 * The rung after a finished iteration (pure). Up one rung (never past the top) after
 * `escalateAfter` failures in a row, or at once on a stuck signature, a failed gate or a rejected
 * completion; down one (never below the first) after `descendAfter` clean iterations in a row, when
 * set. Anything else keeps the rung.
 */
export function nextRung(spec: LadderSpec, at: LadderRung, outcome: LadderOutcome): LadderRung {
  const top = spec.models.length - 1;
  const rung = Math.min(Math.max(at.rung, 0), top);
  const signals = ladderSignals(outcome);
  if (signals.length === 0) {
    const successes = at.successes + 1;
    if (spec.descendAfter !== undefined && successes >= spec.descendAfter && rung > 0)
      return {
        rung: rung - 1,
        failures: 0,
        successes: 0,
        reason: `down from ${spec.models[rung]} after ${successes} successful iterations in a row (descend_after ${spec.descendAfter})`,
      };
    return { rung, failures: 0, successes, reason: at.reason };
  }
  const failures = outcome.failed ? at.failures + 1 : at.failures;
  const at_once = signals.find((s): s is Exclude<LadderSignal, 'failure'> => s !== 'failure');
  const why = at_once
    ? SIGNAL_WORDS[at_once]
    : failures >= spec.escalateAfter
      ? `${failures} failed iterations in a row (escalate_after ${spec.escalateAfter})`
      : undefined;
  if (why === undefined) return { rung, failures, successes: 0, reason: at.reason };
  if (rung === top) return { rung, failures: 0, successes: 0, reason: `top rung, kept after ${why}` };
  return {
    rung: rung + 1,
    failures: 0,
    successes: 0,
    reason: `up from ${spec.models[rung]} after ${why}`,
  };
}

/** The rung states with `key` set, the oldest dropped past {@link MAX_LADDER_SCOPES} (pure). */
export function withRung(
  rungs: Readonly<Record<string, LadderRung>>,
  key: string,
  at: LadderRung,
): Record<string, LadderRung> {
  const { [key]: _old, ...rest } = rungs;
  const entries = [...Object.entries(rest), [key, at] as const];
  return Object.fromEntries(entries.slice(-MAX_LADDER_SCOPES));
}
