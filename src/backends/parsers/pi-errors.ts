import type { ExitClass, ExitInfo } from '../types.ts';
import { classifyMessage, type FailurePatterns } from './classify-exit.ts';
import { stripAnsi } from './json-lines.ts';

/**
 * How pi words a failed model call: the provider SDK's message, which starts with the HTTP status
 * (`401 Incorrect API key provided`, `429 Rate limit reached`, `400 This model's maximum context
 * length is …`), and pi's own start-up errors on stderr (`No API key found for "anthropic"`).
 */
const PATTERNS: FailurePatterns = {
  auth: /^(?:Error: )?(?:401|403)\b|authentication_error|invalid[ _]api[ _]key|No API key (?:found )?for/i,
  context:
    /context[ _](?:length|window)|maximum context|prompt is too long|too many tokens|context_length_exceeded/i,
  rateLimit: /^429\b|rate[ _]?limit|insufficient_quota|exceeded your current quota|usage limit|overloaded/i,
};

/** Whether a failure pi reported is a rate or usage limit. */
export const isPiLimitMessage = (message: string): boolean => PATTERNS.rateLimit.test(message);

/**
 * Classifies the end of a pi run from its structured events: pi exits 0 when the model call
 * failed, so the last `result` decides — an error result (its last prompt failed and no retry
 * followed) by the provider's message — never the assistant's text or a tool's output.
 * stderr is read only when pi printed no event at all (a bad flag, an unknown model, no key).
 */
export function classifyPiExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const result = info.events.findLast((e) => e.type === 'result');
  if (result?.type === 'result') {
    if (result.isError) return classifyMessage(result.text, PATTERNS);
    if (info.exitCode === 0 && info.signal === null) return { kind: 'success' };
  }
  const failure = info.events.findLast((e) => e.type === 'error');
  if (failure?.type === 'error' && !result) return classifyMessage(failure.message, PATTERNS);
  if (info.signal) return { kind: 'agent_error', message: `pi was killed by ${info.signal}` };
  // Its first line says what failed; the lines after it point at its docs.
  const stderr = stripAnsi(info.stderrTail)
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  if (info.exitCode !== 0 && stderr) return classifyMessage(stderr.replace(/^Error: /, ''), PATTERNS);
  if (info.exitCode !== 0) return { kind: 'agent_error', message: `pi exited with code ${info.exitCode}` };
  return { kind: 'agent_error', message: 'pi stopped before a final answer' };
}
