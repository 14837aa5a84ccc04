import type { AgentEvent, OutputParser, Usage } from '../types.ts';

/** One JSON object of an agent's output, fields not yet checked. */
export type Json = Record<string, unknown>;

/** A finite number, else 0. */
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** A string, else ''. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Whether a value is an object (arrays included). */
export const isJsonObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;
/** An object (arrays included), else an empty one. */
export const obj = (v: unknown): Json => (isJsonObject(v) ? v : {});

/** Usage as cline and cursor-agent report it (`inputTokens`, `cacheReadTokens`, …; fresh and cached input apart). */
export function readCamelCaseUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  return {
    inputTokens: num(u.inputTokens),
    outputTokens: num(u.outputTokens),
    cacheReadTokens: num(u.cacheReadTokens),
    cacheWriteTokens: num(u.cacheWriteTokens),
  };
}

/** The last non-blank line of a text, trimmed. */
export const lastLine = (text: string): string | undefined =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);

/** A text without its colour codes (agents colour their error messages). */
export const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

/** What an adapter adds to the JSON-lines parser shell. */
export interface JsonLinesParserOptions {
  /** One output line's JSON object (it has a string `type`) as normalized events. */
  parseObject(o: Json): AgentEvent[];
  /** The run's answer; `plainText()` joins the (most recent) lines that were not JSON objects. */
  finalText(plainText: () => string): string;
  /** A line that starts with `{` but is not JSON, yet is no agent output either (dropped, no event). */
  isNoise?(trimmed: string): boolean;
}

/**
 * A parser for JSONL agent output: a line holding a JSON object with a string `type` goes to
 * `parseObject`; any other non-blank line is plain text, kept (bounded) for the final answer.
 */
export function createJsonLinesParser({
  parseObject,
  finalText,
  isNoise,
}: JsonLinesParserOptions): OutputParser {
  const plain: string[] = [];
  return {
    parseLine(line) {
      const trimmed = line.trim();
      if (trimmed === '') return [];
      if (trimmed.startsWith('{')) {
        try {
          const o = JSON.parse(trimmed) as unknown;
          if (typeof o === 'object' && o !== null && typeof (o as Json).type === 'string')
            return parseObject(o as Json);
        } catch {
          if (isNoise?.(trimmed)) return [];
          // Not JSON after all: plain text.
        }
      }
      plain.push(line);
      // Keep the last 1000–2000 lines: enough for an answer, bounded for a long run.
      if (plain.length > 2000) plain.splice(0, plain.length - 1000);
      return [{ type: 'text', text: line }];
    },
    finalText: () => finalText(() => plain.join('\n')),
  };
}
