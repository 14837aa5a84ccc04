import type { AgentEvent, OutputParser, Usage } from '../types.ts';
import { createJsonLinesParser, isJsonObject, type Json, num, str } from './json-lines.ts';
import { isLimitError, opencodeErrorMessage, opencodeResetAt } from './opencode-errors.ts';

/**
 * `step_finish` tokens → Ralph's usage. opencode has already split them: `input` excludes the
 * cached tokens and `output` excludes `reasoning`; reasoning is billed as output.
 */
export function readOpencodeUsage(raw: unknown): Usage | undefined {
  if (!isJsonObject(raw)) return undefined;
  const cache = isJsonObject(raw.cache) ? raw.cache : {};
  return {
    inputTokens: num(raw.input),
    outputTokens: num(raw.output) + num(raw.reasoning),
    cacheReadTokens: num(cache.read),
    cacheWriteTokens: num(cache.write),
  };
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
    const state = isJsonObject(part.state) ? part.state : {};
    const id = str(part.callID) || str(part.id) || undefined;
    const call: AgentEvent = { type: 'tool_call', name: str(part.tool) || 'tool', id, input: state.input };
    if (state.status === 'error')
      return [call, { type: 'tool_result', id, output: str(state.error), isError: true }];
    const metadata = isJsonObject(state.metadata) ? state.metadata : {};
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
    const error = isJsonObject(obj.error) ? obj.error : {};
    const message = opencodeErrorMessage(error);
    const out: AgentEvent[] = [{ type: 'error', message }];
    if (isLimitError(error) && message !== lastLimit) {
      lastLimit = message;
      const data = isJsonObject(error.data) ? error.data : {};
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
    const part = isJsonObject(obj.part) ? obj.part : {};
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
