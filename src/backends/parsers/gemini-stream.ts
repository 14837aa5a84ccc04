import type { AgentEvent, OutputParser, Usage } from '../types.ts';
import { GEMINI_QUOTA, parseGeminiResetTime } from './gemini-errors.ts';
import { createJsonLinesParser, type Json, num, str, stripAnsi } from './json-lines.ts';

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The `stats` of a `result` line → Ralph's usage. Gemini reports session totals per model:
 * `input_tokens` (prompt, cached included), `cached`, `input` (= prompt − cached), `output_tokens`
 * (candidates) and `total_tokens`, which also counts thinking and tool-use prompt tokens: those are
 * billed as output, so output = total − prompt.
 */
export function readGeminiUsage(stats: unknown): Usage | undefined {
  if (!isObj(stats)) return undefined;
  const prompt = num(stats.input_tokens);
  const cached = num(stats.cached);
  return {
    inputTokens: Math.max(0, prompt - cached),
    outputTokens: Math.max(num(stats.output_tokens), num(stats.total_tokens) - prompt),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** The model that did the work: the one with the most prompt tokens (not the `auto` router's classifier). */
function mainModel(stats: unknown): string | undefined {
  const models = isObj(stats) && isObj(stats.models) ? stats.models : {};
  let best: string | undefined;
  let most = -1;
  for (const [name, m] of Object.entries(models)) {
    const tokens = isObj(m) ? num(m.input_tokens) : 0;
    if (tokens > most) [best, most] = [name, tokens];
  }
  return best;
}

/**
 * Parser for `gemini -o stream-json` (JSONL: init, message, tool_use, tool_result, error, result).
 * Assistant text arrives as deltas; each message is reported as one `text` event when its turn ends
 * (a tool call, or the result). The final text is the assistant text after the last tool activity.
 * The `result` line carries no text, only status, error and session-total stats.
 */
export function createGeminiParser(): OutputParser {
  let current = ''; // assistant text since the last tool call/result
  let pending = ''; // part of `current` not yet reported as a text event
  let lastLimit = '';
  let sessionId = '';

  const flush = (): AgentEvent[] => {
    const text = pending;
    pending = '';
    return text.trim() ? [{ type: 'text', text }] : [];
  };

  const parseObject = (obj: Json): AgentEvent[] => {
    switch (obj.type) {
      case 'init': {
        const model = str(obj.model);
        sessionId = str(obj.session_id);
        return [
          {
            type: 'system',
            // `auto` lets gemini route each turn; the models used are named in the result's stats.
            model: model && !/^auto\b/.test(model) ? model : undefined,
            sessionId: sessionId || undefined,
          },
        ];
      }
      case 'message': {
        if (obj.role !== 'assistant') return []; // the prompt, echoed back
        const content = str(obj.content);
        if (obj.delta === true) {
          current += content;
          pending += content;
          return [];
        }
        current = content;
        pending = content;
        return flush();
      }
      case 'tool_use': {
        const out = flush();
        current = '';
        out.push({
          type: 'tool_call',
          name: str(obj.tool_name) || '?',
          id: str(obj.tool_id) || undefined,
          input: obj.parameters,
        });
        return out;
      }
      case 'tool_result': {
        const out = flush();
        current = '';
        const error = isObj(obj.error) ? str(obj.error.message) : '';
        out.push({
          type: 'tool_result',
          id: str(obj.tool_id) || undefined,
          output: str(obj.output) || error,
          isError: obj.status === 'error',
        });
        return out;
      }
      case 'error': {
        const message = stripAnsi(str(obj.message)) || 'gemini error';
        return [{ type: 'error', message: obj.severity === 'warning' ? `warning: ${message}` : message }];
      }
      case 'result': {
        const out = flush();
        const counted = readGeminiUsage(obj.stats);
        const usage =
          counted && counted.inputTokens + counted.outputTokens + counted.cacheReadTokens > 0
            ? counted
            : undefined;
        const model = mainModel(obj.stats);
        // The only usage report of the session (gemini streams none per model call).
        if (usage)
          out.push({
            type: 'usage',
            usage,
            messageId: sessionId ? `${sessionId}:session` : undefined,
            model,
          });
        const isError = obj.status !== 'success';
        const errorMessage = isObj(obj.error) ? stripAnsi(str(obj.error.message)) : '';
        if (isError && GEMINI_QUOTA.test(errorMessage) && errorMessage !== lastLimit) {
          lastLimit = errorMessage;
          out.push({
            type: 'rate_limit',
            message: errorMessage,
            resetAt: parseGeminiResetTime(errorMessage),
          });
        }
        // Gemini reports no cost: costUsd stays undefined.
        out.push({
          type: 'result',
          // An error result's text is gemini's own error, never assistant text (which may quote anything).
          text: isError ? errorMessage : current,
          isError,
          usage,
          model,
        });
        return out;
      }
      default:
        return [];
    }
  };

  return createJsonLinesParser({
    parseObject,
    // A prompt echo cut short (gemini exited before stdout drained) is not agent output.
    isNoise: (trimmed) => /^\{"type":"message","timestamp":"[^"]*","role":"user"/.test(trimmed),
    finalText: () => current,
  });
}
