import type { ExitClass, ExitInfo } from '../types.ts';
import { finalRateLimit } from './classify-exit.ts';
import { isJsonObject, type Json, num, str, stripAnsi } from './json-lines.ts';

/**
 * The reset time of a rate-limit error, from the response headers opencode passes through
 * (`retry-after-ms`, `retry-after` in seconds or as an HTTP date), relative to the event's time.
 */
export function opencodeResetAt(headers: unknown, at: number): number | undefined {
  if (!isJsonObject(headers)) return undefined;
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
  if (!isJsonObject(error)) return 'opencode error';
  const name = str(error.name) || 'Error';
  const data = isJsonObject(error.data) ? error.data : {};
  const status = num(data.statusCode);
  const message = str(data.message) || str(error.message) || 'no message';
  return `${name}${status ? ` (HTTP ${status})` : ''}: ${message}`;
}

/** Whether an `error` line is a rate or usage limit (from its status, opencode's error name and the provider's body). */
export function isLimitError(error: Json): boolean {
  const data = isJsonObject(error.data) ? error.data : {};
  if (num(data.statusCode) === 429) return true;
  if (/RateLimit/i.test(str(error.name))) return true;
  return str(error.name) === 'APIError' && LIMIT_BODY.test(str(data.responseBody));
}

const AUTH = /^(?:ProviderAuthError\b|APIError \(HTTP 40[13]\))/;
const CONTEXT = /^ContextOverflowError\b/;
const API_CONTEXT = /^APIError \(HTTP 4(?:00|13)\): /;

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
  // opencode colours its `Error:` lines on stderr.
  const stderr = stripAnsi(info.stderrTail)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const message = stderr.find((l) => /^Error\b/.test(l)) ?? stderr.at(-1);
  return { kind: 'agent_error', message: message ?? `opencode exited with code ${info.exitCode}` };
}
