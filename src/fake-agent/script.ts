import { z } from 'zod';

const text = z.string();
const fileContent = z.strictObject({ path: z.string().min(1), content: z.string().default('') });
const usageFields = {
  input_tokens: z.int().min(0).default(0),
  output_tokens: z.int().min(0).default(0),
  cache_read_input_tokens: z.int().min(0).default(0),
  cache_creation_input_tokens: z.int().min(0).default(0),
};

/** One thing the fake agent does. Exactly one key per action. */
export const actionSchema = z.union([
  z.strictObject({ print: text }),
  z.strictObject({ stderr: text }),
  z.strictObject({ echo_prompt: z.literal(true) }),
  /** Write the prompt this iteration got to a file (tests read it back). */
  z.strictObject({ save_prompt: z.string().min(1) }),
  z.strictObject({ write: fileContent }),
  z.strictObject({ append: fileContent }),
  z.strictObject({ delete: z.string().min(1) }),
  /** A shell command (sh -c) in the workspace; its output passes through. Non-zero fails the agent unless allowed. */
  z.strictObject({ run: text, allow_failure: z.boolean().optional() }),
  /** A Claude stream-json assistant message with text, and optionally the usage of that model call. */
  z.strictObject({
    assistant: text,
    usage: z.strictObject(usageFields).optional(),
    model: z.string().optional(),
  }),
  z.strictObject({ tool: z.strictObject({ name: z.string(), input: z.unknown().optional() }) }),
  /** The final stream-json `result` line: its text is the agent's final answer. */
  z.strictObject({
    result: z.strictObject({
      text: text.default(''),
      is_error: z.boolean().default(false),
      subtype: z.string().default('success'),
      cost_usd: z.number().min(0).optional(),
      model: z.string().optional(),
      ...usageFields,
    }),
  }),
  z.strictObject({ sleep: z.number().min(0) }),
  /** Claude-style usage limit: a rejected rate_limit_event resetting after N seconds, then an error result. */
  z.strictObject({ rate_limit: z.strictObject({ resets_in_seconds: z.number().min(0) }) }),
  /** Never exit on its own (Ralph's timeouts must kill it). */
  z.strictObject({ hang: z.literal(true) }),
  /** Leave a background process in the agent's group that keeps stdout open. */
  z.strictObject({
    spawn_grandchild: z.strictObject({
      seconds: z.number().positive().default(3600),
      pid_file: z.string().optional(),
    }),
  }),
  /** Die from SIGKILL, as a crashed agent would. */
  z.strictObject({ crash: z.literal(true) }),
  z.strictObject({ exit: z.int().min(0).max(255) }),
]);
export type FakeAction = z.output<typeof actionSchema>;

/** Conditions for a turn; every given condition must hold. */
export const whenSchema = z.strictObject({
  /** RALPH_ITERATION equals this number (or one of these). */
  iteration: z.union([z.int().positive(), z.array(z.int().positive())]).optional(),
  /** Iteration number at least / at most. */
  min_iteration: z.int().positive().optional(),
  max_iteration: z.int().positive().optional(),
  /** A regular expression the prompt must match. */
  prompt: z.string().optional(),
  /** RALPH_HAT equals this. */
  hat: z.string().optional(),
  /** The model it was started with (`--model`, from cli.model or a rung of cli.models) equals this. */
  model: z.string().optional(),
  file_exists: z.string().optional(),
  file_missing: z.string().optional(),
});
export type FakeWhen = z.output<typeof whenSchema>;

export const turnSchema = z.strictObject({
  name: z.string().optional(),
  when: whenSchema.optional(),
  do: z.array(actionSchema).min(1),
});

export const fakeScriptSchema = z.strictObject({
  /** Checked in order; the first turn whose `when` holds is played. */
  turns: z.array(turnSchema).min(1),
});
export type FakeScript = z.output<typeof fakeScriptSchema>;
export type FakeTurn = z.output<typeof turnSchema>;

/** What a turn may be matched against. */
export interface TurnContext {
  iteration: number;
  prompt: string;
  hat: string;
  /** The `--model` it was given, or undefined. */
  model?: string | undefined;
  exists(path: string): boolean;
}

export function turnMatches(when: FakeWhen | undefined, ctx: TurnContext): boolean {
  if (!when) return true;
  if (when.iteration !== undefined) {
    const wanted = Array.isArray(when.iteration) ? when.iteration : [when.iteration];
    if (!wanted.includes(ctx.iteration)) return false;
  }
  if (when.min_iteration !== undefined && ctx.iteration < when.min_iteration) return false;
  if (when.max_iteration !== undefined && ctx.iteration > when.max_iteration) return false;
  if (when.prompt !== undefined && !new RegExp(when.prompt, 'm').test(ctx.prompt)) return false;
  if (when.hat !== undefined && ctx.hat !== when.hat) return false;
  if (when.model !== undefined && ctx.model !== when.model) return false;
  if (when.file_exists !== undefined && !ctx.exists(when.file_exists)) return false;
  if (when.file_missing !== undefined && ctx.exists(when.file_missing)) return false;
  return true;
}

/** The turn to play for this context (pure). */
export function selectTurn(script: FakeScript, ctx: TurnContext): FakeTurn | undefined {
  return script.turns.find((t) => turnMatches(t.when, ctx));
}

/** Replaces `{{iteration}}`, `{{hat}}` and `{{env.NAME}}` in action strings. */
export function expand(
  template: string,
  ctx: { iteration: number; hat: string; env: NodeJS.ProcessEnv },
): string {
  return template.replace(
    /\{\{\s*(iteration|hat|env\.([A-Za-z_][A-Za-z0-9_]*))\s*\}\}/g,
    (_m, key: string, envName?: string) => {
      if (key === 'iteration') return String(ctx.iteration);
      if (key === 'hat') return ctx.hat;
      return ctx.env[envName ?? ''] ?? '';
    },
  );
}
