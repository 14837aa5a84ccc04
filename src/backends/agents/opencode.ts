import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentCliDefinition, dirOr } from '../definition.ts';
import { finalRateLimit } from '../parsers/classify-exit.ts';
import { createJsonLinesParser, type Json, num, str } from '../parsers/json-lines.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo, OutputParser, Usage } from '../types.ts';

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** The session title Ralph gives every run: with a title set, opencode makes no extra (unreported) title model call. */
export const OPENCODE_SESSION_TITLE = 'Ralph loop iteration';

/** User arguments that already choose what Ralph would otherwise set. */
const TITLE_FLAG = /^--title(=.*)?$/;
const DIR_FLAG = /^--dir(=.*)?$/;

/**
 * `step_finish` tokens → Ralph's usage. opencode has already split them: `input` excludes the
 * cached tokens and `output` excludes `reasoning`; reasoning is billed as output.
 */
export function readOpencodeUsage(raw: unknown): Usage | undefined {
  if (!isObj(raw)) return undefined;
  const cache = isObj(raw.cache) ? raw.cache : {};
  return {
    inputTokens: num(raw.input),
    outputTokens: num(raw.output) + num(raw.reasoning),
    cacheReadTokens: num(cache.read),
    cacheWriteTokens: num(cache.write),
  };
}

/**
 * The reset time of a rate-limit error, from the response headers opencode passes through
 * (`retry-after-ms`, `retry-after` in seconds or as an HTTP date), relative to the event's time.
 */
export function opencodeResetAt(headers: unknown, at: number): number | undefined {
  if (!isObj(headers)) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), str(v)]));
  const ms = Number.parseFloat(lower['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms > 0) return at + ms;
  const after = lower['retry-after'] ?? '';
  const seconds = Number.parseFloat(after);
  if (/^\s*\d/.test(after) && Number.isFinite(seconds)) return seconds > 0 ? at + seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : date;
}

/** A provider's rate or usage limit (opencode's own Go/free-tier limits name themselves in the body). */
const LIMIT_BODY = /GoUsageLimitError|FreeUsageLimitError|insufficient_quota|rate_limit|usage limit/i;
const CONTEXT_MESSAGE =
  /context (?:length|window)|context_length_exceeded|maximum context|prompt is too long|too many tokens/i;

/**
 * One `error` line's error object → the message Ralph shows, prefixed with opencode's error name
 * and the HTTP status (`APIError (HTTP 401): …`), so the exit can be classified from that prefix.
 */
export function opencodeErrorMessage(error: unknown): string {
  if (!isObj(error)) return 'opencode error';
  const name = str(error.name) || 'Error';
  const data = isObj(error.data) ? error.data : {};
  const status = num(data.statusCode);
  const message = str(data.message) || str(error.message) || 'no message';
  return `${name}${status ? ` (HTTP ${status})` : ''}: ${message}`;
}

/** Whether an `error` line is a rate or usage limit (from its status, opencode's error name and the provider's body). */
function isLimitError(error: Json): boolean {
  const data = isObj(error.data) ? error.data : {};
  if (num(data.statusCode) === 429) return true;
  if (/RateLimit/i.test(str(error.name))) return true;
  return str(error.name) === 'APIError' && LIMIT_BODY.test(str(data.responseBody));
}

/**
 * Parser for `opencode run --format json`: one JSON object per line (`step_start`, `text`,
 * `tool_use`, `step_finish` with tokens and cost, `error`), all with a `sessionID`. Each model call
 * is one step; the final answer is the text of the last step.
 */
export function createOpencodeParser(model?: string): OutputParser {
  let sessionId = '';
  let stepText: string[] = [];
  let finalText = '';
  let costUsd: number | undefined;
  let lastLimit = '';
  const total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

  const toolUse = (part: Json): AgentEvent[] => {
    const state = isObj(part.state) ? part.state : {};
    const id = str(part.callID) || str(part.id) || undefined;
    const call: AgentEvent = { type: 'tool_call', name: str(part.tool) || 'tool', id, input: state.input };
    if (state.status === 'error')
      return [call, { type: 'tool_result', id, output: str(state.error), isError: true }];
    const metadata = isObj(state.metadata) ? state.metadata : {};
    // The bash tool completes even when its command fails; its exit code says so.
    const failed = typeof metadata.exit === 'number' && metadata.exit !== 0;
    return [call, { type: 'tool_result', id, output: str(state.output), isError: failed }];
  };

  const stepFinish = (part: Json): AgentEvent[] => {
    const out: AgentEvent[] = [];
    const usage = readOpencodeUsage(part.tokens);
    const stepCost = typeof part.cost === 'number' && Number.isFinite(part.cost) ? part.cost : undefined;
    if (usage) {
      total.inputTokens += usage.inputTokens;
      total.outputTokens += usage.outputTokens;
      total.cacheReadTokens += usage.cacheReadTokens;
      total.cacheWriteTokens += usage.cacheWriteTokens;
      out.push({ type: 'usage', usage, messageId: str(part.id) || undefined, model, costUsd: stepCost });
    }
    if (stepCost !== undefined) costUsd = (costUsd ?? 0) + stepCost;
    // A step that ends in tool calls is followed by another; any other reason ends the answer.
    if (part.reason !== 'tool-calls') {
      finalText = stepText.join('\n');
      out.push({ type: 'result', text: finalText, isError: false, usage: { ...total }, costUsd, model });
    }
    return out;
  };

  const errorLine = (obj: Json): AgentEvent[] => {
    const error = isObj(obj.error) ? obj.error : {};
    const message = opencodeErrorMessage(error);
    const out: AgentEvent[] = [{ type: 'error', message }];
    if (isLimitError(error) && message !== lastLimit) {
      lastLimit = message;
      const data = isObj(error.data) ? error.data : {};
      const at = typeof obj.timestamp === 'number' ? obj.timestamp : Date.now();
      out.push({ type: 'rate_limit', message, resetAt: opencodeResetAt(data.responseHeaders, at) });
    }
    return out;
  };

  const parseObject = (obj: Json): AgentEvent[] => {
    const out: AgentEvent[] = [];
    if (!sessionId && typeof obj.sessionID === 'string') {
      sessionId = obj.sessionID;
      out.push({ type: 'system', sessionId, model });
    }
    const part = isObj(obj.part) ? obj.part : {};
    switch (obj.type) {
      case 'step_start':
        stepText = [];
        return out;
      case 'text': {
        const text = str(part.text);
        stepText.push(text);
        return [...out, { type: 'text', text }];
      }
      case 'tool_use':
        return [...out, ...toolUse(part)];
      case 'step_finish':
        return [...out, ...stepFinish(part)];
      case 'error':
        return [...out, ...errorLine(obj)];
      default:
        return out; // reasoning (only with --thinking) and anything newer
    }
  };

  return createJsonLinesParser({
    parseObject,
    finalText: () => finalText,
  });
}

const AUTH = /^(?:ProviderAuthError\b|APIError \(HTTP 40[13]\))/;
const CONTEXT = /^ContextOverflowError\b/;
const API_CONTEXT = /^APIError \(HTTP 4(?:00|13)\): /;
// Strips the colour codes of opencode's `Error:` lines on stderr.
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Classifies the end of an opencode run from its structured `error` lines (as the parser named
 * them), never from assistant text or tool output, so a file the agent read that mentions a limit
 * is no limit. opencode's stderr is read only when it printed no structured error (a failure before
 * the session started, such as an invalid config).
 */
export function classifyOpencodeExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const limit = finalRateLimit(info.events);
  if (limit) return limit;
  const errors = info.events.flatMap((e) => (e.type === 'error' ? [e.message] : []));
  const finished = info.events.some((e) => e.type === 'result');
  if (info.exitCode === 0 && info.signal === null && errors.length === 0) {
    if (finished) return { kind: 'success' };
    return {
      kind: 'agent_error',
      message: 'opencode stopped before a final answer (a rejected permission?)',
    };
  }
  for (const message of [...errors].reverse()) {
    if (AUTH.test(message)) return { kind: 'auth_error', message };
    if (CONTEXT.test(message)) return { kind: 'context_overflow', message };
    if (API_CONTEXT.test(message) && CONTEXT_MESSAGE.test(message))
      return { kind: 'context_overflow', message };
  }
  if (errors.length > 0) return { kind: 'agent_error', message: errors.at(-1)! };
  if (info.signal) return { kind: 'agent_error', message: `opencode was killed by ${info.signal}` };
  const stderr = info.stderrTail
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const message = stderr.find((l) => /^Error\b/.test(l)) ?? stderr.at(-1);
  return { kind: 'agent_error', message: message ?? `opencode exited with code ${info.exitCode}` };
}

/** Options of the opencode adapter. */
export interface OpencodeBackendOptions {
  /** The model in use (`cli.model`, `provider/model`), reported with usage so the context-window % is known. */
  model?: string | undefined;
}

/**
 * opencode (`opencode run --format json`), headless and auto-approving. Checked against
 * `opencode run --help` of opencode-ai 1.18.33. The prompt always goes on stdin: opencode appends
 * stdin to the message, and a prompt given as an argument is altered (an argument with spaces is
 * wrapped in double quotes, its own quotes escaped), besides the 128 KiB argument limit.
 */
export function createOpencodeBackend(options: OpencodeBackendOptions = {}): Backend {
  return {
    name: 'opencode',
    buildInvocation({ prompt, config, workspace, extraArgs }) {
      const user = [...config.cli.args, ...extraArgs];
      const args = [
        'run', // non-interactive: send one message, run the session until it is idle, exit
        '--format', // raw JSON events on stdout, one per line, parsed above
        'json',
        // Approve permission requests (e.g. a path outside the workspace) instead of rejecting
        // them, which would end the session; rules the config explicitly denies stay denied.
        '--auto',
      ];
      // A fixed session title: otherwise opencode makes an extra model call for one, whose tokens
      // and cost it never reports.
      if (!user.some((a) => TITLE_FLAG.test(a))) args.push('--title', OPENCODE_SESSION_TITLE);
      // The directory to work in: opencode prefers $PWD over its real working directory.
      if (!user.some((a) => DIR_FLAG.test(a))) args.push('--dir', workspace);
      if (config.cli.model) args.push('-m', config.cli.model); // model as provider/model
      args.push(...user);
      return {
        command: config.cli.command ?? 'opencode',
        args,
        stdin: prompt,
        // A stale PWD (inherited from wherever Ralph was started) would move opencode and its tools there.
        env: { PWD: workspace },
      };
    },
    createParser: () => createOpencodeParser(options.model),
    classifyExit: classifyOpencodeExit,
  };
}

/** The opencode adapter with the model left to opencode's own config. */
export const opencodeBackend: Backend = createOpencodeBackend();

/** OpenCode: its adapter, how it is installed and logged in to, and how `ralph plan` opens it. */
export const opencode: AgentCliDefinition = {
  name: 'opencode',
  modelFlag: '-m',
  executable: 'opencode',
  install: 'npm install -g opencode-ai',
  // $XDG_DATA_HOME (default ~/.local/share)/opencode/auth.json after `opencode auth login`, or
  // OPENCODE_AUTH_CONTENT (opencode.ai/docs; opencode-ai 1.18.33's binary), or a provider's key.
  auth: {
    login: 'run `opencode auth login`, or set a provider key such as ANTHROPIC_API_KEY',
    env: [
      'OPENCODE_AUTH_CONTENT',
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'GEMINI_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'OPENROUTER_API_KEY',
    ],
    files: (env, home) => [
      { path: join(dirOr(env.XDG_DATA_HOME, join(home, '.local', 'share')), 'opencode', 'auth.json') },
    ],
    hidden: (env, home) => {
      if (env.OPENCODE_CONFIG_CONTENT) return 'OPENCODE_CONFIG_CONTENT may carry a provider key';
      const config = join(dirOr(env.XDG_CONFIG_HOME, join(home, '.config')), 'opencode');
      const file = ['opencode.json', 'opencode.jsonc'].map((f) => join(config, f)).find(existsSync);
      return file ? `${file} may carry a provider key` : undefined;
    },
  },
  adapter: (config) => createOpencodeBackend({ model: config.cli.model }),
  // `opencode [project]` starts the TUI; `--prompt` is its "Prompt to use" (opencode.ai/docs/cli).
  // Model names there are provider/model.
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'opencode',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, '--prompt', prompt],
  }),
};
