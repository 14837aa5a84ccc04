import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentCliDefinition, envFileSets } from '../definition.ts';
import { classifyMessage, endedCleanly } from '../parsers/classify-exit.ts';
import { createJsonLinesParser, type Json, lastLine, num, str } from '../parsers/json-lines.ts';
import { parseStreamJsonObject } from '../parsers/stream-json.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo, OutputParser, Usage } from '../types.ts';

/**
 * The prefix Qwen Code writes in front of an API error it reports as assistant text
 * (`parseAndFormatApiError`): `[API Error: 429 Rate limit reached …]`.
 */
const API_ERROR = '[API Error: ';
const RATE_LIMIT = /^\[API Error: (?:429|529)\b|\brate.?limit|too many requests|quota|throttl/i;
const AUTH =
  /^\[API Error: (?:401|403)\b|missing api key|invalid[_ ]api[_ ]key|incorrect api key|unauthori[sz]ed|authentication/i;
const CONTEXT = /maximum context length|context[_ ]length[_ ]exceeded|context window|prompt is too long/i;

/**
 * Qwen Code usage → Ralph's usage. Its `input_tokens` is the prompt token count, cached tokens
 * included (`cache_read_input_tokens` is a part of it), so the cached part is split out.
 */
export function readQwenUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  const cached = num(u.cache_read_input_tokens);
  return {
    inputTokens: Math.max(0, num(u.input_tokens) - cached),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: num(u.cache_creation_input_tokens),
  };
}

/** Text blocks of an assistant message. */
function texts(message: Json): string[] {
  const content = Array.isArray(message.content) ? (message.content as Json[]) : [];
  return content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
}

/**
 * An API error Qwen Code turned into assistant text: a message with no usage at all (no model call
 * answered it) whose text carries the `[API Error: …]` the CLI formats. A model's own message always
 * has usage, so a model that merely writes that text is not mistaken for one.
 */
function apiErrorText(message: Json): string | undefined {
  const usage = (message.usage ?? {}) as Json;
  if (num(usage.input_tokens) + num(usage.output_tokens) > 0) return undefined;
  const text = texts(message).join('');
  const at = text.indexOf(API_ERROR);
  return at >= 0 ? text.slice(at).trim() : undefined;
}

/** An API error message as a normalized event: a rate limit Qwen Code already gave up retrying, or an error. */
function apiErrorEvent(message: string): AgentEvent {
  if (RATE_LIMIT.test(message) && !AUTH.test(message))
    return { type: 'rate_limit', message, retrying: false };
  return { type: 'error', message };
}

/**
 * Parser for `qwen -o stream-json` (Claude-style lines: system/assistant/user/result). Differences
 * from Claude Code handled here: usage counts cached input inside `input_tokens`; an API error is
 * reported as assistant text with a `success` result and exit 0, so it becomes an error event and an
 * error result; an error result carries its message in `error.message`.
 */
export function createQwenParser(): OutputParser {
  let resultText: string | undefined;
  let lastAssistant = '';
  /** The last assistant message was an API error Qwen Code wrote itself. */
  let lastWasApiError = false;

  const parseObject = (obj: Json): AgentEvent[] => {
    switch (obj.type) {
      case 'assistant': {
        const message = (obj.message ?? {}) as Json;
        const apiError = apiErrorText(message);
        if (apiError !== undefined) {
          lastWasApiError = true;
          return [apiErrorEvent(apiError)];
        }
        lastWasApiError = false;
        // Claude-shaped content; the usage is re-read with the cached tokens split out.
        const events: AgentEvent[] = parseStreamJsonObject(obj).filter((e) => e.type !== 'usage');
        const usage = readQwenUsage(message.usage);
        if (usage)
          events.push({
            type: 'usage',
            usage,
            messageId: str(message.id) || undefined,
            model: str(message.model) || undefined,
          });
        const text = texts(message).join('\n');
        if (text) lastAssistant = text;
        return events;
      }
      case 'result': {
        const isError = obj.is_error === true || str(obj.subtype).startsWith('error') || lastWasApiError;
        const error = (obj.error ?? {}) as Json;
        const text = str(obj.result) || str(error.message);
        resultText = text;
        return [
          {
            type: 'result',
            text,
            isError,
            usage: readQwenUsage(obj.usage),
            costUsd: typeof obj.total_cost_usd === 'number' ? obj.total_cost_usd : undefined,
          },
        ];
      }
      default:
        // system (init: model, session), user (tool results), anything newer.
        return parseStreamJsonObject(obj);
    }
  };

  return createJsonLinesParser({
    parseObject,
    finalText: (plainText) => resultText ?? (lastAssistant || plainText()),
  });
}

/** A failed message of Qwen Code's structured output as an exit class. */
function classifyFailure(message: string): ExitClass {
  return classifyMessage(message, { auth: AUTH, context: CONTEXT, rateLimit: RATE_LIMIT });
}

/**
 * How a Qwen Code run ended, from its structured output only: the final `result` (an error result,
 * or a result that repeats an API error the CLI reported as its last message) and the API error
 * events, never assistant text or tool results. Qwen Code retries 429s itself (silently), so a
 * 429 that reaches the output is one it gave up on.
 */
export function classifyQwenExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const result = info.events.findLast((e) => e.type === 'result');
  if (endedCleanly(result, info)) return { kind: 'success' };
  if (result?.type === 'result' && result.isError) {
    const apiError = info.events.findLast((e) => e.type === 'rate_limit' || e.type === 'error');
    if (apiError?.type === 'rate_limit') return { kind: 'rate_limit', message: apiError.message };
    return classifyFailure(result.text || (apiError?.type === 'error' ? apiError.message : ''));
  }
  if (info.signal) return { kind: 'agent_error', message: `qwen was killed by ${info.signal}` };
  if (!result && info.exitCode === 0) return { kind: 'agent_error', message: 'qwen exited without a result' };
  const message = lastLine(info.stderrTail) ?? `qwen exited with code ${info.exitCode}`;
  return { kind: 'agent_error', message };
}

/**
 * Qwen Code (`qwen`, npm @qwen-code/qwen-code; 0.15.10 is the newest that installs on Node 20),
 * headless. Flags checked against `qwen --help` of 0.15.10. The prompt goes on stdin (qwen reads
 * it there in one-shot mode when no positional prompt is given), so a prompt of any size arrives intact.
 */
export const qwenBackend: Backend = {
  name: 'qwen',
  buildInvocation({ prompt, config, extraArgs }) {
    const args = [
      // -o stream-json: one JSON object per line (init, assistant/user messages, result with usage).
      '--output-format',
      'stream-json',
      // --yolo: approve every tool call; nobody is there to answer a confirmation.
      '--yolo',
    ];
    // -m/--model: the model of the configured provider (e.g. qwen3-coder-plus).
    if (config.cli.model) args.push('--model', config.cli.model);
    args.push(...config.cli.args, ...extraArgs);
    return { command: config.cli.command ?? 'qwen', args, stdin: prompt, env: {} };
  },
  createParser: createQwenParser,
  classifyExit: classifyQwenExit,
};

/** ~/.qwen: its settings, login, `.env`, sessions, logs and temp files (it reads no variable for it). */
const qwenDir = (home: string): string => join(home, '.qwen');

/** Qwen Code: its adapter, and how it is installed and logged in to. */
export const qwen: AgentCliDefinition = {
  name: 'qwen',
  modelFlag: '--model',
  executable: 'qwen',
  install: 'npm install -g @qwen-code/qwen-code',
  // OPENAI_API_KEY (OpenAI-compatible), ~/.qwen/.env, or the Qwen OAuth cache ~/.qwen/oauth_creds.json;
  // ~/.qwen/settings.json may configure other providers (qwenlm.github.io/qwen-code-docs/en/cli/authentication).
  auth: {
    login: 'run `qwen auth`, or set OPENAI_API_KEY',
    env: ['OPENAI_API_KEY'],
    files: (_env, home) => [
      { path: join(qwenDir(home), 'oauth_creds.json') },
      { path: join(qwenDir(home), '.env'), holds: envFileSets(['OPENAI_API_KEY']) },
    ],
    hidden: (_env, home) => {
      const settings = join(qwenDir(home), 'settings.json');
      return existsSync(settings) ? `${settings} may configure a provider key` : undefined;
    },
  },
  sandboxHome: (_env, home) => [qwenDir(home)],
  adapter: () => qwenBackend,
};
