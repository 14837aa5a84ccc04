import type { AgentEvent, OutputParser, Usage } from '../types.ts';
import { createJsonLinesParser, isJsonObject, type Json, num, str } from './json-lines.ts';
import { isPiLimitMessage } from './pi-errors.ts';

/** An assistant message's `usage` (`input` without the cached tokens, `cacheRead`, `cacheWrite`, `cost.total`). */
export function readPiUsage(raw: unknown): { usage: Usage; costUsd: number | undefined } | undefined {
  if (!isJsonObject(raw)) return undefined;
  const cost = isJsonObject(raw.cost) ? raw.cost : {};
  return {
    usage: {
      inputTokens: num(raw.input),
      outputTokens: num(raw.output),
      cacheReadTokens: num(raw.cacheRead),
      cacheWriteTokens: num(raw.cacheWrite),
    },
    costUsd: typeof cost.total === 'number' && Number.isFinite(cost.total) ? cost.total : undefined,
  };
}

/** The text blocks of a message's content, joined. */
const textOf = (content: unknown): string =>
  (Array.isArray(content) ? content : [])
    .filter((b): b is Json => isJsonObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');

/**
 * Parser for `pi -p --mode json`: its session events, one JSON object per line (`session`,
 * `agent_start`/`agent_end`, `turn_*`, `message_start`/`message_update`/`message_end`,
 * `tool_execution_*`, `auto_retry_*`, `compaction_*`). Each assistant `message_end` is one model
 * call, with its usage and cost, or `stopReason: "error"` and the provider's `errorMessage`; pi
 * exits 0 either way, so the answer and the failure are read here. An `agent_end` closes a prompt
 * (pi's own retries start another): the result, with the totals so far; a prompt that failed and
 * was not retried is an error result once the output is over (`flush`).
 */
export function createPiParser(): OutputParser {
  let finalText = '';
  let model: string | undefined;
  let failure: string | undefined;
  let costUsd: number | undefined;
  const total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

  const assistantEnd = (message: Json): AgentEvent[] => {
    const out: AgentEvent[] = [];
    if (str(message.model)) model = str(message.model);
    const read = readPiUsage(message.usage);
    if (read && read.usage.inputTokens + read.usage.outputTokens > 0) {
      for (const k of Object.keys(total) as (keyof Usage)[]) total[k] += read.usage[k];
      if (read.costUsd !== undefined) costUsd = (costUsd ?? 0) + read.costUsd;
      const messageId = str(message.responseId) || `${num(message.timestamp)}`;
      out.push({ type: 'usage', usage: read.usage, messageId, model, costUsd: read.costUsd });
    }
    if (message.stopReason === 'error' || message.stopReason === 'aborted') {
      failure = str(message.errorMessage) || `pi: request ${str(message.stopReason)}`;
      out.push({ type: 'error', message: failure });
      return out;
    }
    failure = undefined;
    const text = textOf(message.content);
    if (text) {
      finalText = text;
      out.push({ type: 'text', text });
    }
    return out;
  };

  const toolEnd = (o: Json): AgentEvent[] => {
    const result = isJsonObject(o.result) ? o.result : {};
    const output = textOf(result.content);
    return [{ type: 'tool_result', id: str(o.toolCallId) || undefined, output, isError: o.isError === true }];
  };

  const parseObject = (o: Json): AgentEvent[] => {
    const message = isJsonObject(o.message) ? o.message : {};
    switch (o.type) {
      case 'session':
        return [{ type: 'system', sessionId: str(o.id) || undefined }];
      case 'message_end':
        return message.role === 'assistant' ? assistantEnd(message) : [];
      case 'tool_execution_start':
        return [
          {
            type: 'tool_call',
            name: str(o.toolName) || 'tool',
            id: str(o.toolCallId) || undefined,
            input: o.args,
          },
        ];
      case 'tool_execution_end':
        return toolEnd(o);
      case 'auto_retry_start': {
        // pi waits and tries again itself: a limit it is still retrying, not the end of the run.
        const message = str(o.errorMessage);
        return isPiLimitMessage(message) ? [{ type: 'rate_limit', message, retrying: true }] : [];
      }
      case 'agent_end':
        if (failure !== undefined) return [];
        return [{ type: 'result', text: finalText, isError: false, usage: { ...total }, costUsd, model }];
      default:
        return []; // message_update deltas (the whole message comes at message_end), turns, compaction
    }
  };

  const parser = createJsonLinesParser({ parseObject, finalText: () => finalText });
  return {
    ...parser,
    // pi exits 0 when its last prompt failed; only the end of the output says no retry followed.
    flush: (): AgentEvent[] =>
      failure === undefined
        ? []
        : [{ type: 'result', text: failure, isError: true, usage: { ...total }, costUsd, model }],
  };
}
