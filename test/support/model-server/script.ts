/**
 * The script of the scripted model server: each request is answered by the first rule whose
 * regex matches the latest user prompt (and whose turn matches), so a real agent CLI acts out a
 * deterministic workflow against 127.0.0.1.
 */

/** A tool the model asks the agent to run, in protocol-neutral form; each protocol maps it to the CLI's own tool. */
export type ScriptedToolCall =
  | { kind: 'shell'; command: string }
  | { kind: 'write_file'; path: string; content: string };

export interface ScriptedReply {
  /** Tool calls to make first (the agent runs them and calls back with the results). */
  tools?: ScriptedToolCall[];
  /** The final text of the turn (after any tool results came back). */
  text?: string;
  /** Token usage to report for each response. */
  usage?: { input: number; output: number };
  /** Reply with this HTTP status instead (e.g. 429 with retry-after, 500). */
  status?: number;
  headers?: Record<string, string>;
  /** Error body for non-2xx statuses. */
  errorBody?: unknown;
}

export interface ScriptRule {
  /** Regex tested against the latest user prompt text of the request. */
  match?: string;
  /**
   * Which model call of the conversation this rule answers: 1 = the first request (no tool results
   * yet), 2 = the request after the first tool results, …; omitted = any.
   */
  turn?: number;
  /** Answer only the first `times` matching requests (e.g. one 429 then the next rule). */
  times?: number;
  reply: ScriptedReply;
}

export interface Script {
  rules: ScriptRule[];
  /** When nothing matches: this text (default "OK"). */
  fallback?: string;
}

/** One request as the protocols see it, reduced to what the script matches on. */
export interface RequestView {
  /** Text of the latest user message that is not a tool result (the prompt of this conversation). */
  prompt: string;
  /** Number of tool-result rounds already in the conversation (0 on the first call). */
  toolRounds: number;
}

/** Picks the reply for a request (mutates `used` counters for `times`). */
export function pickReply(
  script: Script,
  view: RequestView,
  used: Map<ScriptRule, number>,
): { reply: ScriptedReply; rule: ScriptRule | null } {
  for (const rule of script.rules) {
    if (rule.turn !== undefined && rule.turn !== view.toolRounds + 1) continue;
    if (rule.match !== undefined && !new RegExp(rule.match, 'ms').test(view.prompt)) continue;
    const n = used.get(rule) ?? 0;
    if (rule.times !== undefined && n >= rule.times) continue;
    used.set(rule, n + 1);
    return { reply: rule.reply, rule };
  }
  return { reply: { text: script.fallback ?? 'OK' }, rule: null };
}

/**
 * What to send for this call: the tool calls of the reply on the first call of a turn, the text
 * once the tool results are back (or at once when the reply has no tools).
 */
export function stepOf(
  reply: ScriptedReply,
  view: RequestView,
): { tools: ScriptedToolCall[]; text: string | null } {
  const tools = reply.tools ?? [];
  if (tools.length > 0 && view.toolRounds === 0) return { tools, text: null };
  return { tools: [], text: reply.text ?? 'Done.' };
}
