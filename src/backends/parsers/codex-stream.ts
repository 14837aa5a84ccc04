import type { AgentEvent, OutputParser, Usage } from '../types.ts';
import {
  CODEX_RATE_LIMIT,
  CODEX_RETRY_NOTICE,
  CODEX_USAGE_LIMIT,
  parseCodexResetTime,
} from './codex-errors.ts';
import { createJsonLinesParser, type Json, num, str } from './json-lines.ts';

/** `turn.completed` usage → Ralph's usage; codex's `input_tokens` include the cached ones. */
export function readCodexUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  const cached = num(u.cached_input_tokens);
  return {
    inputTokens: Math.max(0, num(u.input_tokens) - cached),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: num(u.cache_write_input_tokens),
  };
}

function mcpResultText(item: Json): string {
  const error = item.error as Json | null | undefined;
  if (error && typeof error === 'object') return str(error.message);
  const result = item.result as Json | null | undefined;
  const content = result && Array.isArray(result.content) ? (result.content as Json[]) : [];
  return content.map((c) => str(c.text)).join('');
}

/** Parser for `codex exec --json` (JSONL: thread/turn/item events); the final text is the last agent message. */
export function createCodexParser(model?: string): OutputParser {
  let lastMessage = '';
  let turns = 0;
  let threadId = '';
  let lastLimit = '';
  const announced = new Set<string>();

  const limitEvent = (message: string): AgentEvent[] => {
    if (message === lastLimit) return [];
    lastLimit = message;
    return [{ type: 'rate_limit', message, resetAt: parseCodexResetTime(message) }];
  };

  const toolCall = (item: Json): AgentEvent[] => {
    const id = str(item.id);
    if (announced.has(id)) return [];
    announced.add(id);
    switch (item.type) {
      case 'command_execution':
        return [{ type: 'tool_call', name: 'shell', id, input: { command: item.command } }];
      case 'file_change':
        return [{ type: 'tool_call', name: 'file_change', id, input: { changes: item.changes } }];
      case 'mcp_tool_call':
        return [
          { type: 'tool_call', name: `${str(item.server)}.${str(item.tool)}`, id, input: item.arguments },
        ];
      case 'web_search':
        return [{ type: 'tool_call', name: 'web_search', id, input: { query: item.query } }];
      default:
        return [];
    }
  };

  const itemCompleted = (item: Json): AgentEvent[] => {
    const id = str(item.id);
    switch (item.type) {
      case 'agent_message':
        lastMessage = str(item.text);
        return [{ type: 'text', text: lastMessage }];
      case 'command_execution':
        return [
          ...toolCall(item),
          {
            type: 'tool_result',
            id,
            output: str(item.aggregated_output),
            isError: item.status === 'failed' || item.status === 'declined' || num(item.exit_code) !== 0,
          },
        ];
      case 'file_change': {
        const changes = Array.isArray(item.changes) ? (item.changes as Json[]) : [];
        return [
          ...toolCall(item),
          {
            type: 'tool_result',
            id,
            output: changes.map((c) => `${str(c.kind)} ${str(c.path)}`).join('\n'),
            isError: item.status === 'failed',
          },
        ];
      }
      case 'mcp_tool_call':
        return [
          ...toolCall(item),
          { type: 'tool_result', id, output: mcpResultText(item), isError: item.status === 'failed' },
        ];
      case 'web_search':
        return toolCall(item);
      case 'error':
        // A non-fatal notice inside the turn (e.g. a transport fallback); fatal ones come as `error`/`turn.failed`.
        return [{ type: 'error', message: str(item.message) }];
      default:
        return []; // reasoning, todo_list: not part of the answer
    }
  };

  const parseObject = (obj: Json): AgentEvent[] => {
    switch (obj.type) {
      case 'thread.started':
        threadId = str(obj.thread_id);
        return [{ type: 'system', sessionId: threadId || undefined, model }];
      case 'item.started':
      case 'item.updated':
        return toolCall((obj.item ?? {}) as Json);
      case 'item.completed':
        return itemCompleted((obj.item ?? {}) as Json);
      case 'turn.completed': {
        turns++;
        const usage = readCodexUsage(obj.usage);
        const out: AgentEvent[] = [];
        if (usage) out.push({ type: 'usage', usage, messageId: `${threadId}:turn-${turns}`, model });
        // codex reports no cost: costUsd stays undefined.
        out.push({ type: 'result', text: lastMessage, isError: false, usage, model });
        return out;
      }
      case 'turn.failed': {
        turns++;
        const message = str((obj.error as Json | undefined)?.message) || 'codex turn failed';
        return [
          ...(CODEX_USAGE_LIMIT.test(message) ? limitEvent(message) : []),
          { type: 'result', text: message, isError: true, model },
        ];
      }
      case 'error': {
        const message = str(obj.message) || 'codex error';
        if (CODEX_RETRY_NOTICE.test(message))
          return CODEX_RATE_LIMIT.test(message)
            ? [{ type: 'rate_limit', message, retrying: true }]
            : [{ type: 'error', message }];
        if (CODEX_USAGE_LIMIT.test(message)) return limitEvent(message);
        return [{ type: 'error', message }];
      }
      default:
        return []; // turn.started and anything newer
    }
  };

  return createJsonLinesParser({
    parseObject,
    finalText: () => lastMessage,
  });
}
