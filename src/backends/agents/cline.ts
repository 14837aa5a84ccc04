import { join } from 'node:path';
import { type AgentCliDefinition, dirOr } from '../definition.ts';
import { endedCleanly, finalRateLimit } from '../parsers/classify-exit.ts';
import {
  createJsonLinesParser,
  type Json,
  num,
  obj,
  readCamelCaseUsage,
  str,
} from '../parsers/json-lines.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo, OutputParser } from '../types.ts';
import { parseCopilotResetTime } from './copilot.ts';

/**
 * The prompt argument's size limit: longer prompts are split, the rest going on stdin (cline
 * appends piped stdin to the prompt argument after a blank line), since Linux caps one argument at 128 KiB.
 */
export const CLINE_ARG_PROMPT_MAX_BYTES = 100_000;

/** Prefix of the error events built from cline's `error` agent events (its `errorClass` in brackets). */
const CLINE_ERROR = /^cline error \[([\w-]+)\] /;
/** Rate and usage limits in an error cline reports (its errorClass is only auth / context / unknown). */
const RATE_LIMIT =
  /\b429\b|rate.?limit|too many requests|exceeded your current quota|insufficient_quota|quota exceeded|usage limit/i;
const AUTH = /\b401\b|invalid api key|incorrect api key|unauthori[sz]ed|not authenticated|missing api key/i;

/**
 * Splits a prompt for cline: the argument, and what goes on stdin. cline joins them as
 * `argument + "\n\n" + stdin` (stdin trimmed), so a long prompt is cut at a blank line within the
 * argument limit and arrives byte for byte (trailing whitespace aside); without such a blank line
 * it is cut at a line break, which then reaches the agent as a blank line.
 */
export function splitClinePrompt(
  prompt: string,
  maxBytes: number = CLINE_ARG_PROMPT_MAX_BYTES,
): [string, string] {
  if (Buffer.byteLength(prompt) <= maxBytes) return [prompt, ''];
  // The longest prefix that fits (a UTF-16 unit is at most 3 bytes of UTF-8), not cutting a surrogate pair.
  let end = Math.min(prompt.length, maxBytes);
  for (let over = Buffer.byteLength(prompt.slice(0, end)) - maxBytes; over > 0; ) {
    end -= Math.max(1, Math.floor(over / 3));
    over = Buffer.byteLength(prompt.slice(0, end)) - maxBytes;
  }
  if (/[\uD800-\uDBFF]/.test(prompt.charAt(end - 1))) end--;
  const head = prompt.slice(0, end);
  const blank = head.lastIndexOf('\n\n');
  if (blank > 0 && /\S/.test(head.slice(0, blank))) return [prompt.slice(0, blank), prompt.slice(blank + 2)];
  const newline = head.lastIndexOf('\n');
  if (newline > 0 && /\S/.test(head.slice(0, newline)))
    return [prompt.slice(0, newline), prompt.slice(newline + 1)];
  return [head, prompt.slice(end)];
}

/** A tool's `output` (a list of `{query, result, error, success}`) as text, and whether any part failed. */
function toolOutput(output: unknown): { text: string; failed: boolean } {
  if (typeof output === 'string') return { text: output, failed: false };
  const parts = Array.isArray(output) ? (output as Json[]) : [];
  return {
    text: parts.map((p) => str(p.result) || str(p.error)).join('\n'),
    failed: parts.some((p) => p.success === false),
  };
}

/**
 * Parser for `cline --json` (JSONL: `agent_event` / `hook_event` lines, a final `run_result`).
 * Text and tool calls come from `content_start` / `content_end`, usage and cost per model call from
 * `usage` events (their `totalCost` is a running total), and the answer, total usage and cost from `run_result`.
 */
export function createClineParser(): OutputParser {
  let resultText: string | undefined;
  let lastText = '';
  let sessionId = '';
  let calls = 0;
  let costSoFar = 0;

  const agentEvent = (event: Json): AgentEvent[] => {
    switch (event.type) {
      case 'content_start':
        // A tool call is announced when it starts; text is taken complete from content_end.
        if (event.contentType !== 'tool') return [];
        return [
          {
            type: 'tool_call',
            name: str(event.toolName) || '?',
            id: str(event.toolCallId) || undefined,
            input: event.input,
          },
        ];
      case 'content_end': {
        if (event.contentType === 'text') {
          const text = str(event.text);
          if (!text) return [];
          lastText = text;
          return [{ type: 'text', text }];
        }
        if (event.contentType !== 'tool') return [];
        const { text, failed } = toolOutput(event.output);
        return [
          {
            type: 'tool_result',
            id: str(event.toolCallId) || undefined,
            output: text,
            isError: failed || !!event.error,
          },
        ];
      }
      case 'usage': {
        const usage = readCamelCaseUsage(event);
        if (!usage) return [];
        calls++;
        // totalCost is the run's running total: this call's cost is what it added (0 = not priced).
        const total = num(event.totalCost);
        const costUsd = total > costSoFar ? total - costSoFar : undefined;
        costSoFar = Math.max(costSoFar, total);
        return [{ type: 'usage', usage, messageId: `${sessionId}:call-${calls}`, costUsd }];
      }
      case 'error': {
        const error = obj(event.error);
        const message = str(error.message) || str(event.error) || 'cline error';
        const errorClass = str(event.errorClass) || 'unknown';
        if (errorClass === 'unknown' && RATE_LIMIT.test(message) && !AUTH.test(message))
          return [{ type: 'rate_limit', message, resetAt: parseCopilotResetTime(message), retrying: false }];
        return [{ type: 'error', message: `cline error [${errorClass}] ${message}` }];
      }
      default:
        // iteration_start/end, content_update (streamed tool output), notice, done (run_result follows).
        return [];
    }
  };

  const parseObject = (o: Json): AgentEvent[] => {
    switch (o.type) {
      case 'agent_event':
        return agentEvent(obj(o.event));
      case 'hook_event':
        if (o.hookEventName !== 'agent_start' || o.parentAgentId !== null) return [];
        sessionId = str(o.taskId);
        return [{ type: 'system', sessionId: sessionId || undefined }];
      case 'run_result': {
        resultText = str(o.text);
        const totals = obj(o.aggregateUsage ?? o.usage);
        const cost = num(totals.totalCost);
        const model = str(obj(o.model).id) || undefined;
        return [
          {
            type: 'result',
            text: resultText,
            isError: o.finishReason !== 'completed',
            usage: readCamelCaseUsage(totals),
            // cline reports 0 for a model it has no prices for: that is "unknown", not free.
            costUsd: cost > 0 ? cost : undefined,
            model,
          },
        ];
      }
      case 'error':
        // The CLI's own failure (bad arguments, no prompt), printed as one JSON line.
        return [{ type: 'error', message: `cline error [cli] ${str(o.message) || 'cline failed'}` }];
      default:
        return [];
    }
  };

  return createJsonLinesParser({
    parseObject,
    finalText: (plainText) => resultText ?? (lastText || plainText()),
  });
}

/**
 * How a cline run ended, from its structured output only: the `run_result` finish reason and the
 * `error` events (their `errorClass`: auth, context_window_exceeded, unknown; a rate limit is an
 * unknown-class error whose provider message says so), never assistant text or tool output.
 */
export function classifyClineExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const limit = finalRateLimit(info.events);
  if (limit) return limit;
  const result = info.events.findLast((e) => e.type === 'result');
  if (endedCleanly(result, info)) return { kind: 'success' };
  const error = info.events
    .flatMap((e) => (e.type === 'error' ? [CLINE_ERROR.exec(e.message)] : []))
    .findLast((m) => m !== null);
  if (error) {
    const message = error.input.slice(error[0].length);
    if (error[1] === 'auth') return { kind: 'auth_error', message };
    if (error[1] === 'context_window_exceeded') return { kind: 'context_overflow', message };
    return { kind: 'agent_error', message };
  }
  if (info.signal) return { kind: 'agent_error', message: `cline was killed by ${info.signal}` };
  if (result?.type === 'result' && result.text) return { kind: 'agent_error', message: result.text };
  return { kind: 'agent_error', message: `cline exited with code ${info.exitCode}` };
}

/**
 * Cline CLI (`cline`, npm `cline`), headless. Flags checked against `cline --help` of 3.0.65. The
 * prompt is the positional argument (`--json` refuses a run without one); a long prompt is split
 * between the argument and piped stdin, which cline appends to it.
 */
export const clineBackend: Backend = {
  name: 'cline',
  buildInvocation({ prompt, config, extraArgs }) {
    const args = [
      // Every message as one JSON line (agent events, usage, a final run_result) instead of styled text.
      '--json',
      // Approve every tool call (the default in act mode, made explicit so a config cannot turn it off).
      '--auto-approve',
      'true',
    ];
    // -m/--model: the model of the configured provider.
    if (config.cli.model) args.push('--model', config.cli.model);
    args.push(...config.cli.args, ...extraArgs);
    const command = config.cli.command ?? 'cline';
    const [head, rest] = splitClinePrompt(prompt);
    // cline reads a single word as a (mistyped) subcommand; a trailing newline, which it trims, keeps it a prompt.
    const argument = /\s/.test(head) ? head : `${head}\n`;
    // `--` ends the options, so a prompt that starts with "-" is still the prompt.
    args.push('--', argument);
    if (rest === '') return { command, args, stdin: null, env: {} };
    // cline only reads stdin that is a FIFO or a file, and a spawned child's stdin pipe is a socket:
    // `cat |` hands it the rest of the prompt through a real pipe (same process group, cline's exit code).
    return { command: 'sh', args: ['-c', 'cat | "$0" "$@"', command, ...args], stdin: rest, env: {} };
  },
  createParser: createClineParser,
  classifyExit: classifyClineExit,
};

/** $CLINE_DIR, else ~/.cline: its data (login, settings, tasks) and logs. */
const clineDir = (env: NodeJS.ProcessEnv, home: string): string => dirOr(env.CLINE_DIR, join(home, '.cline'));

/** $CLINE_DATA_DIR, else the data/ of its directory. */
const clineDataDir = (env: NodeJS.ProcessEnv, home: string): string =>
  dirOr(env.CLINE_DATA_DIR, join(clineDir(env, home), 'data'));

/** Cline CLI: its adapter, and how it is installed and logged in to. */
export const cline: AgentCliDefinition = {
  name: 'cline',
  modelFlag: '--model',
  executable: 'cline',
  install: 'npm install -g cline',
  // `cline auth` writes $CLINE_DIR (default ~/.cline)/data/settings/providers.json; $CLINE_DATA_DIR
  // replaces data/ (docs.cline.bot/cli/configuration). Older CLIs: data/secrets.json.
  auth: {
    login: 'run `cline auth`',
    env: [],
    files: (env, home) => {
      const data = clineDataDir(env, home);
      return [{ path: join(data, 'settings', 'providers.json') }, { path: join(data, 'secrets.json') }];
    },
  },
  sandboxHome: (env, home) => [...new Set([clineDir(env, home), clineDataDir(env, home)])],
  adapter: () => clineBackend,
};
