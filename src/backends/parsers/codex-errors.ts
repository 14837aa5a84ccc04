import { DURATION_PHRASE, parseDuration } from '../../state/io/time-format.ts';
import type { ExitClass, ExitInfo } from '../types.ts';
import { finalRateLimit } from './classify-exit.ts';
import { lastLine } from './json-lines.ts';
import { MONTHS } from './reset-time.ts';

/** An older codex's wait: "try again in 2 days 3 hours 5 minutes". */
const TRY_AGAIN_IN = new RegExp(`try again in (${DURATION_PHRASE})`, 'i');

/** codex's own retry notices (`Reconnecting... 2/5 (…)`): the CLI is still retrying, not failing. */
export const CODEX_RETRY_NOTICE = /^Reconnecting\.\.\./;
/** A usage limit of the account (a plan or an organisation spend limit): it lasts until a reset time. */
export const CODEX_USAGE_LIMIT =
  /hit your (?:[\w'’-]+ )*limit|usage limit (has been )?reached|quota exceeded|organi[sz]ation has (?:reached|hit) its (?:monthly )?(?:usage|spend(?:ing)?) limit/i;
/** A rate limit of the API (429): codex retries it itself. */
export const CODEX_RATE_LIMIT = /\b429\b|too many requests|rate.?limit/i;
const AUTH =
  /\b401\b|unauthori[sz]ed|missing environment variable|invalid[_ ]api[_ ]key|incorrect api key|access token could not be refreshed|refresh token|not logged in|log ?in again|upgrade to plus/i;
const CONTEXT = /context window|context_length_exceeded|maximum context length/i;

/**
 * The reset time in a codex usage-limit message, as epoch ms plus a minute (codex prints local time
 * to the minute): "try again at 10:26 PM." (today), "try again at Nov 25th, 2026 9:46 AM.", or
 * "try again in 2 days 3 hours 5 minutes" (older versions). Undefined when it names none.
 */
export function parseCodexResetTime(message: string, now: number = Date.now()): number | undefined {
  const at =
    /try again at (?:([A-Za-z]{3})[a-z]* (\d{1,2})(?:st|nd|rd|th)?,? (\d{4}),? )?(\d{1,2}):(\d{2})\s*([AP]M)/i.exec(
      message,
    );
  if (at) {
    let hour = Number(at[4]) % 12;
    if (at[6]!.toUpperCase() === 'PM') hour += 12;
    const minute = Number(at[5]);
    let when: Date;
    if (at[1]) {
      const month = MONTHS.indexOf(at[1].toLowerCase());
      if (month < 0) return undefined;
      when = new Date(Number(at[3]), month, Number(at[2]), hour, minute);
    } else {
      const today = new Date(now);
      when = new Date(today.getFullYear(), today.getMonth(), today.getDate(), hour, minute);
      // Printed just before midnight and read just after: it meant the previous day's clock.
      if (when.getTime() - now > 23 * 3600_000) when = new Date(when.getTime() - 24 * 3600_000);
    }
    return when.getTime() + 60_000;
  }
  const ms = parseDuration(TRY_AGAIN_IN.exec(message)?.[1] ?? '');
  return ms !== undefined && ms > 0 ? now + ms : undefined;
}

/** Reads a failed message of codex's structured output (or its own stderr) as an exit class. */
function classifyMessage(message: string): ExitClass | undefined {
  if (CODEX_USAGE_LIMIT.test(message))
    return { kind: 'rate_limit', message, resetAt: parseCodexResetTime(message) };
  if (AUTH.test(message)) return { kind: 'auth_error', message };
  if (CONTEXT.test(message)) return { kind: 'context_overflow', message };
  // "exceeded retry limit, last status: 429 Too Many Requests": codex's own retries ran out.
  if (CODEX_RATE_LIMIT.test(message)) return { kind: 'rate_limit', message };
  return undefined;
}

/**
 * Classifies the end of a codex run from its structured events only (`error` / `turn.failed`), never
 * from agent messages or command output, so a file the agent read that mentions a limit is no limit.
 * codex's stderr is consulted only when it printed no structured error (a failure before the stream).
 */
export function classifyCodexExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const limit = finalRateLimit(info.events);
  if (limit) return limit;
  const result = info.events.findLast((e) => e.type === 'result');
  if (info.exitCode === 0 && info.signal === null && !(result?.type === 'result' && result.isError))
    return { kind: 'success' };
  const messages: string[] = [];
  for (const e of info.events) {
    if (e.type === 'error' && !CODEX_RETRY_NOTICE.test(e.message)) messages.push(e.message);
    if (e.type === 'result' && e.isError) messages.push(e.text);
  }
  if (messages.length === 0) {
    const stderr = info.stderrTail
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^(error\b|fatal\b)/i.test(l) || /\bERROR\b/.test(l));
    messages.push(...stderr);
  }
  for (const message of [...messages].reverse()) {
    const cls = classifyMessage(message);
    if (cls) return cls;
  }
  if (info.signal) return { kind: 'agent_error', message: `codex was killed by ${info.signal}` };
  const last = messages.at(-1) ?? lastLine(info.stderrTail);
  return { kind: 'agent_error', message: last ?? `codex exited with code ${info.exitCode}` };
}
