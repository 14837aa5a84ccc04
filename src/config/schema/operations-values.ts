// The operations schema's values without zod: `ralph ask` needs the default answer and the
// steering commands (tell, stop, answer, ask) run inside agent tool calls, where loading the config
// schema (zod) would cost more than the command itself. operations.ts builds its schema from these.

/** What `ralph ask` prints when nobody answered in time (`human.default_answer`'s default). */
export const DEFAULT_HUMAN_ANSWER =
  'No human answered in time. Proceed with your best judgement and note the assumption in the scratchpad.';

/** What a notification can be about. */
export const NOTIFY_KINDS = [
  'stopped',
  'question',
  'approval',
  'parked',
  'resumed',
  'limit_warning',
] as const;

/** What a webhook POST looks like: Ralph's JSON, or a Slack or Discord incoming-webhook message. */
export const WEBHOOK_FORMATS = ['json', 'slack', 'discord'] as const;

/** What a Redis URL looks like (`fleet.redis`, `--redis`, RALPH_REDIS_URL). */
export const REDIS_URL = /^rediss?:\/\/./;

/** ralph-orchestrator's twelve lifecycle phase-events (docs/operations/hooks.md says where each fires). */
export const HOOK_PHASE_EVENTS = [
  'pre.loop.start',
  'post.loop.start',
  'pre.iteration.start',
  'post.iteration.start',
  'pre.plan.created',
  'post.plan.created',
  'pre.human.interact',
  'post.human.interact',
  'pre.loop.complete',
  'post.loop.complete',
  'pre.loop.error',
  'post.loop.error',
] as const;

/** What a failed hook does to the loop. */
export const HOOK_ON_ERROR = ['warn', 'block', 'suspend'] as const;
/** How `on_error: suspend` waits and retries. */
export const HOOK_SUSPEND_MODES = ['wait_for_resume', 'retry_backoff', 'wait_then_retry'] as const;
