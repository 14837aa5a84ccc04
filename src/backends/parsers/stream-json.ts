import { formatDuration } from '../../state/io/time-format.ts';
import type { AgentEvent, OutputParser, Usage } from '../types.ts';
import { type Json, num } from './json-lines.ts';

/** Reads Anthropic-style usage (`input_tokens`, `cache_read_input_tokens`, …). */
export function readUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  return {
    inputTokens: num(u.input_tokens),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: num(u.cache_read_input_tokens),
    cacheWriteTokens: num(u.cache_creation_input_tokens),
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) =>
      typeof c === 'object' && c !== null && (c as Json).type === 'text'
        ? String((c as Json).text ?? '')
        : '',
    )
    .join('');
}

/** HTTP statuses and Claude Code error kinds that mean "rate limited / overloaded, wait and retry". */
const LIMIT_STATUSES = new Set([429, 529]);
const LIMIT_KINDS = new Set(['rate_limit', 'overloaded']);

/** Epoch seconds (as Claude Code reports `resetsAt`) → epoch ms; anything else → undefined. */
function resetMs(seconds: unknown): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/**
 * `system` lines: `init` names the model; `api_retry` is Claude Code retrying a failed API call
 * itself (a 429/529 is a rate limit it is still handling, anything else a transient API error).
 */
function systemEvents(obj: Json): AgentEvent[] {
  if (obj.subtype !== 'api_retry')
    return [
      {
        type: 'system',
        model: obj.model as string | undefined,
        sessionId: obj.session_id as string | undefined,
      },
    ];
  const status = typeof obj.error_status === 'number' ? obj.error_status : undefined;
  const kind = typeof obj.error === 'string' ? obj.error : 'api_error';
  const delay = num(obj.retry_delay_ms);
  const message =
    `API ${status ?? 'error'} ${kind}: retry ${num(obj.attempt)}/${num(obj.max_retries)}` +
    ` in ${formatDuration(delay)}`;
  if ((status !== undefined && LIMIT_STATUSES.has(status)) || LIMIT_KINDS.has(kind))
    return [{ type: 'rate_limit', message, retrying: true }];
  return [{ type: 'error', message }];
}

/**
 * `rate_limit_event` lines (subscription auth): `rejected` means the usage limit is reached until
 * `resetsAt`; `allowed` / `allowed_warning` are status reports, not limits.
 */
function rateLimitEvents(obj: Json): AgentEvent[] {
  const info = (obj.rate_limit_info ?? {}) as Json;
  if (info.status !== 'rejected') return [];
  const kind = typeof info.rateLimitType === 'string' ? info.rateLimitType : 'usage';
  return [
    {
      type: 'rate_limit',
      message: `${kind} limit reached`,
      resetAt: resetMs(info.resetsAt),
      retrying: false,
    },
  ];
}

/**
 * The message Claude Code synthesizes when an API call finally failed (`is_api_error_message`,
 * model `<synthetic>`): its `error` kind and HTTP status are structured, so they become an `error`
 * event, or a `rate_limit` one for 429/529.
 */
function apiErrorEvent(obj: Json, text: string): AgentEvent {
  const status = typeof obj.api_error_status === 'number' ? obj.api_error_status : undefined;
  const kind = typeof obj.error === 'string' ? obj.error : 'api_error';
  if ((status !== undefined && LIMIT_STATUSES.has(status)) || LIMIT_KINDS.has(kind)) {
    const params = (obj.api_error_params ?? {}) as Json;
    const info = (params.rate_limit_info ?? {}) as Json;
    return { type: 'rate_limit', message: text || kind, resetAt: resetMs(info.resetsAt), retrying: false };
  }
  return { type: 'error', message: `${kind}${status === undefined ? '' : ` (HTTP ${status})`}: ${text}` };
}

/** Parses one Claude Code `--output-format stream-json` object into normalized events. */
export function parseStreamJsonObject(obj: Json): AgentEvent[] {
  switch (obj.type) {
    case 'system':
      return systemEvents(obj);
    case 'rate_limit_event':
      return rateLimitEvents(obj);
    case 'assistant': {
      const message = (obj.message ?? {}) as Json;
      const events: AgentEvent[] = [];
      if (obj.is_api_error_message === true) {
        const text = contentText(message.content);
        // Its usage is all zeros and its model `<synthetic>`: nothing to meter.
        if (text) events.push({ type: 'text', text });
        events.push(apiErrorEvent(obj, text));
        return events;
      }
      for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
        if (block.type === 'text' && typeof block.text === 'string')
          events.push({ type: 'text', text: block.text });
        else if (block.type === 'tool_use')
          events.push({
            type: 'tool_call',
            name: String(block.name ?? '?'),
            id: block.id as string | undefined,
            input: block.input,
          });
      }
      const usage = readUsage(message.usage);
      if (usage)
        events.push({
          type: 'usage',
          usage,
          messageId: message.id as string | undefined,
          model: message.model as string | undefined,
        });
      return events;
    }
    case 'user': {
      const message = (obj.message ?? {}) as Json;
      const out: AgentEvent[] = [];
      for (const block of Array.isArray(message.content) ? (message.content as Json[]) : []) {
        if (block.type === 'tool_result')
          out.push({
            type: 'tool_result',
            id: block.tool_use_id as string | undefined,
            output: contentText(block.content),
            isError: block.is_error === true,
          });
      }
      return out;
    }
    case 'result':
      return [
        {
          type: 'result',
          text: typeof obj.result === 'string' ? obj.result : '',
          // A result with is_error: true is an error even when its subtype says success.
          isError:
            obj.is_error === true || (typeof obj.subtype === 'string' && obj.subtype.startsWith('error')),
          usage: readUsage(obj.usage),
          costUsd: typeof obj.total_cost_usd === 'number' ? obj.total_cost_usd : undefined,
          model: obj.model as string | undefined,
        },
      ];
    case 'error':
      return [
        {
          type: 'error',
          message: String((obj.error as Json | undefined)?.message ?? obj.message ?? 'error'),
        },
      ];
    default:
      return [];
  }
}

/**
 * Parser for Claude-style stream-json output. Lines that are not JSON objects are plain text, so
 * agents that mix both (the fake agent, custom scripts) are read correctly.
 */
export function createStreamJsonParser(): OutputParser {
  let resultText: string | undefined;
  const plain: string[] = [];
  let lastAssistant = '';
  return {
    parseLine(line) {
      const trimmed = line.trimStart();
      if (trimmed.startsWith('{')) {
        try {
          const obj = JSON.parse(trimmed) as unknown;
          if (typeof obj === 'object' && obj !== null && typeof (obj as Json).type === 'string') {
            const events = parseStreamJsonObject(obj as Json);
            for (const e of events) {
              if (e.type === 'result') resultText = e.text;
            }
            const text = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
            if (text.length > 0) lastAssistant = text.join('\n');
            return events;
          }
        } catch {
          // Not JSON after all: plain text.
        }
      }
      plain.push(line);
      if (plain.length > 2000) plain.splice(0, plain.length - 1000);
      return [{ type: 'text', text: line }];
    },
    finalText() {
      if (resultText !== undefined) return resultText;
      if (plain.length > 0) return plain.join('\n');
      return lastAssistant;
    },
  };
}

export { createTextParser } from './text-parser.ts';
