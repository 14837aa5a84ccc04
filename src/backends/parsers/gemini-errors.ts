import { DURATION_PHRASE, parseDuration } from '../../state/io/time-format.ts';
import type { ExitClass, ExitInfo } from '../types.ts';
import { finalRateLimit } from './classify-exit.ts';
import { stripAnsi } from './json-lines.ts';
import { parseResetTime } from './reset-time.ts';

/**
 * Gemini CLI exits with an API error's HTTP status as its exit code, truncated to 8 bits (429 → 173),
 * and with its own codes for fatal errors (packages/core/src/utils/errors.ts, 0.61.0).
 */
export const GEMINI_EXIT = {
  authentication: 41, // FatalAuthenticationError: no/invalid auth method, missing GEMINI_API_KEY
  input: 42, // FatalInputError: no prompt, bad @file reference
  sandbox: 44,
  config: 52,
  turnLimit: 53, // model.maxSessionTurns reached
  toolExecution: 54, // a fatal tool error (e.g. no space left on device)
  untrustedWorkspace: 55, // headless in a folder that is not trusted (prevented by --skip-trust)
  http401: 401 & 0xff, // 145
  http403: 403 & 0xff, // 147
  http429: 429 & 0xff, // 173
} as const;

/** A quota or rate-limit error, in a message of gemini or of the API. */
export const GEMINI_QUOTA =
  /exhausted your (?:daily )?quota|exceeded your current quota|quota exceeded|RESOURCE_EXHAUSTED|"code":\s*429\b|\b429 Too Many Requests|rate limit exceeded|exhausted your capacity/i;
const AUTH =
  /API_KEY_INVALID|API key not valid|API key expired|"code":\s*40[13]\b|UNAUTHENTICATED|PERMISSION_DENIED|invalid auth method|must specify the GEMINI_API_KEY|GEMINI_API_KEY environment variable/i;
const CONTEXT =
  /input token count \(\d+\) exceeds the maximum|exceeds the maximum number of tokens|context window (?:is )?(?:full|exceeded|will overflow)|context_length_exceeded/i;

/**
 * The reset time of a Gemini quota error, as epoch ms: "Please retry in 37.5s" / "Suggested retry
 * after 3600s." (RetryInfo), or the next midnight Pacific time for a daily quota (Gemini API
 * requests-per-day quotas reset then). Undefined when the message names neither.
 */
export function parseGeminiResetTime(message: string, now: number = Date.now()): number | undefined {
  const retry = parseDuration(RETRY_IN.exec(message)?.[1] ?? '');
  if (retry !== undefined) return now + Math.ceil(retry);
  if (/daily quota|per ?day/i.test(message)) return parseResetTime('resets 12am (America/Los_Angeles)', now);
  return undefined;
}

/** Gemini's RetryInfo wait: "Please retry in 37.5s", "Suggested retry after 3600s". */
const RETRY_IN = new RegExp(`retry (?:in|after) (${DURATION_PHRASE})`, 'i');

/** Noise gemini prints on stderr on every run, and stack frames: never the reason it failed. */
const STDERR_NOISE =
  /^(Warning: 256-color|YOLO mode is enabled|Approval mode overridden|Ripgrep is not available|\[STARTUP\]|at\s|[{}[\]]+$)/;

function stderrMessage(stderr: string): string {
  const lines = stripAnsi(stderr)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !STDERR_NOISE.test(l));
  return lines.slice(-3).join(' ').slice(-500);
}

/**
 * Classifies the end of a gemini run from its structured output only — the `result` line's status
 * and error, `error` lines, and the exit code (an API error exits with its HTTP status & 0xff) —
 * never from assistant text or tool output, so a file the agent read that mentions a quota is no
 * limit. Stderr is read only for the message of a failure before the stream (auth, config).
 */
export function classifyGeminiExit(info: ExitInfo, now: number = Date.now()): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const result = info.events.findLast((e) => e.type === 'result');
  const failed = result?.type === 'result' && result.isError;
  if (info.exitCode === 0 && info.signal === null && result && !failed) return { kind: 'success' };

  const limit = finalRateLimit(info.events);
  if (limit) return limit;

  const messages: string[] = [];
  for (const e of info.events) {
    if (e.type === 'error' && !e.message.startsWith('warning: ')) messages.push(e.message);
    if (e.type === 'result' && e.isError && e.text) messages.push(e.text);
  }
  const structured = messages.at(-1);
  const message =
    structured ??
    (stderrMessage(info.stderrTail) ||
      (failed
        ? 'gemini reported an error without a message'
        : info.signal
          ? `gemini was killed by ${info.signal}`
          : `gemini exited with code ${info.exitCode}`));

  if (info.exitCode === GEMINI_EXIT.http429 || (structured !== undefined && GEMINI_QUOTA.test(structured)))
    return { kind: 'rate_limit', message, resetAt: parseGeminiResetTime(message, now) };
  if (
    info.exitCode === GEMINI_EXIT.authentication ||
    info.exitCode === GEMINI_EXIT.http401 ||
    info.exitCode === GEMINI_EXIT.http403 ||
    (structured !== undefined && AUTH.test(structured))
  )
    return { kind: 'auth_error', message };
  if (structured !== undefined && CONTEXT.test(structured)) return { kind: 'context_overflow', message };
  if (info.exitCode === 0 && info.signal === null && !result)
    return { kind: 'agent_error', message: structured ?? 'gemini exited without a result' };
  return { kind: 'agent_error', message };
}
