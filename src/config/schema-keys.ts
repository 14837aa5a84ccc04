import { z } from 'zod';

/** Unwraps optional/default/nullable wrappers so the structural schema underneath can be read. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault
    ) {
      current = current.unwrap() as z.ZodType;
    } else {
      return current;
    }
  }
}

/** The keys an object at `path` inside `schema` accepts (records are traversed by their value type). */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject) {
      const next = (current.shape as Record<string, z.ZodType>)[String(segment)];
      if (next === undefined) return [];
      current = unwrap(next);
    } else if (current instanceof z.ZodRecord) {
      current = unwrap(current.valueType as z.ZodType);
    } else if (current instanceof z.ZodArray) {
      current = unwrap(current.element as z.ZodType);
    } else {
      return [];
    }
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

/**
 * ralph-orchestrator keys Ralph does not implement: rejected with what to do instead, never
 * silently accepted (the schema does not know them, so they are reported as unknown keys).
 */
export const RETIRED_KEYS: Readonly<Record<string, string>> = {
  'event_loop.enforce_hat_scope':
    "ralph-orchestrator's enforce_hat_scope is not supported: Ralph routes every published event by the hats' triggers; remove the key",
  'event_loop.checkpoint_interval':
    'checkpoint_interval is not supported: with git.commit: true Ralph commits after every successful iteration; remove the key',
  'event_loop.mutation_score_warn_threshold':
    'mutation_score_warn_threshold is not supported: Ralph runs no mutation testing (use gates.tests for your test command); remove the key',
  'cli.idle_timeout_secs': 'use event_loop.idle_timeout_seconds (kill an agent that is silent this long)',
};
