import { join } from 'node:path';
import { type AgentCliDefinition, macKeychain, xdgDir } from '../definition.ts';
import { endedCleanly } from '../parsers/classify-exit.ts';
import {
  createJsonLinesParser,
  type Json,
  num,
  obj,
  readCamelCaseUsage,
  str,
} from '../parsers/json-lines.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo, OutputParser } from '../types.ts';

/**
 * Prompts up to this many bytes go as the positional argument; longer ones are piped on stdin
 * (print mode reads a piped prompt), since Linux caps one argument at 128 KiB.
 */
export const CURSOR_ARG_PROMPT_MAX_BYTES = 100_000;

/** Failures cursor-agent prints on stderr (exit 1, no `result` line), matched at the start of a line. */
const STDERR_AUTH =
  /^(?:Error: )?Authentication required|The provided API key is invalid|^(?:Error: )?\[?unauthenticated\]?|Not logged in/im;
const STDERR_USAGE_LIMIT = /^(?:Error: )?You've hit your (?:usage|free requests) limit/im;
const STDERR_RATE_LIMIT = /^(?:Error: )?.*(?:rate limit exceeded|too many requests|\b429\b)/im;
const STDERR_CONTEXT = /^(?:Error: )?.*(?:context (?:window|length)|prompt is too long)/im;
const STDERR_FIRST = /^(?:\S+Error: |Error: |⚠ )?(.+)$/m;

/**
 * The reset a cursor-agent usage-limit message names, as epoch ms (the start of that day, local
 * time): "Your usage limits will reset when your monthly cycle ends on 11/17/2025."
 */
export function parseCursorResetTime(message: string): number | undefined {
  const m = /reset[^.]*?\bon (\d{1,2})\/(\d{1,2})\/(\d{4})/i.exec(message);
  if (!m) return undefined;
  const at = new Date(Number(m[3]), Number(m[1]) - 1, Number(m[2])).getTime();
  return Number.isFinite(at) ? at : undefined;
}

/** The tool of a `tool_call` object: its one `<name>ToolCall` key (`shellToolCall` → `shell`), or `function`'s name. */
function toolOf(toolCall: Json): { name: string; call: Json } {
  const key = Object.keys(toolCall).find((k) => /ToolCall$/.test(k) || k === 'function');
  if (!key) return { name: '?', call: {} };
  const call = obj(toolCall[key]);
  if (key === 'function') return { name: str(call.name) || 'function', call };
  return { name: key.replace(/ToolCall$/, ''), call };
}

/** A completed tool call's result as text, and whether it failed (`error`, `rejected`, or a non-zero exit). */
function toolResult(call: Json): { output: string; isError: boolean } {
  const result = obj(call.result);
  if ('error' in result || 'rejected' in result || 'failure' in result) {
    const failure = obj(result.error ?? result.rejected ?? result.failure);
    return {
      output: str(failure.errorMessage) || str(failure.reason) || JSON.stringify(failure),
      isError: true,
    };
  }
  const success = obj(result.success);
  const exitCode = num(success.exitCode);
  const output =
    [str(success.stdout), str(success.stderr)].filter(Boolean).join('\n') ||
    str(success.content) ||
    str(success.message) ||
    (Object.keys(success).length > 0 ? JSON.stringify(success) : '');
  return { output, isError: exitCode !== 0 };
}

/**
 * Parser for `cursor-agent -p --output-format stream-json`: system init (model, session), user
 * echo, thinking deltas (not text), one `assistant` line per complete message, `tool_call`
 * started/completed pairs (the tool is the key of `tool_call`), and a `result` with the answer and
 * token usage (no cost). Without `--stream-partial-output` each assistant line is a whole message.
 */
export function createCursorParser(): OutputParser {
  let resultText: string | undefined;
  let lastText = '';

  const parseObject = (o: Json): AgentEvent[] => {
    switch (o.type) {
      case 'system':
        return [
          { type: 'system', model: str(o.model) || undefined, sessionId: str(o.session_id) || undefined },
        ];
      case 'assistant': {
        const content = obj(o.message).content;
        const text = (Array.isArray(content) ? (content as Json[]) : [])
          .filter((c) => c.type === 'text')
          .map((c) => str(c.text))
          .join('');
        if (!text) return [];
        lastText = text;
        return [{ type: 'text', text }];
      }
      case 'tool_call': {
        const { name, call } = toolOf(obj(o.tool_call));
        const id = str(o.call_id) || undefined;
        if (o.subtype === 'started') return [{ type: 'tool_call', name, id, input: call.args }];
        if (o.subtype !== 'completed') return [];
        return [{ type: 'tool_result', id, ...toolResult(call) }];
      }
      case 'result': {
        resultText = str(o.result);
        return [
          {
            type: 'result',
            text: resultText,
            isError: o.is_error === true || (typeof o.subtype === 'string' && o.subtype !== 'success'),
            usage: readCamelCaseUsage(o.usage),
          },
        ];
      }
      default:
        // user (the prompt echoed), thinking deltas, anything newer.
        return [];
    }
  };

  return createJsonLinesParser({
    parseObject,
    finalText: (plainText) => resultText ?? (lastText || plainText()),
  });
}

/**
 * How a cursor-agent run ended. A success is a `result` line and exit 0. cursor-agent reports
 * failures (no login, usage limit, workspace trust, a model the plan cannot use) only on stderr
 * with exit 1 and no `result` line, so its stderr is read then, and only then; assistant text and
 * tool output are never read.
 */
export function classifyCursorExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const result = info.events.findLast((e) => e.type === 'result');
  if (endedCleanly(result, info)) return { kind: 'success' };
  if (info.signal) return { kind: 'agent_error', message: `cursor-agent was killed by ${info.signal}` };
  if (result?.type === 'result' && result.isError)
    return { kind: 'agent_error', message: result.text || 'cursor-agent reported an error' };
  const stderr = info.stderrTail;
  const message = STDERR_FIRST.exec(stderr)?.[1]?.trim() || `cursor-agent exited with code ${info.exitCode}`;
  if (STDERR_AUTH.test(stderr)) return { kind: 'auth_error', message };
  if (STDERR_USAGE_LIMIT.test(stderr))
    return { kind: 'rate_limit', message, resetAt: parseCursorResetTime(stderr) };
  if (STDERR_RATE_LIMIT.test(stderr)) return { kind: 'rate_limit', message };
  if (STDERR_CONTEXT.test(stderr)) return { kind: 'context_overflow', message };
  if (!result && info.exitCode === 0)
    return { kind: 'agent_error', message: 'cursor-agent exited without a result' };
  return { kind: 'agent_error', message };
}

/**
 * Cursor CLI (`cursor-agent`, also installed as `agent`; not on npm, installed by Cursor's own
 * script). Flags from Cursor's CLI parameter and output-format reference (the CLI could not be
 * installed here to read its `--help`).
 */
export const cursorBackend: Backend = {
  name: 'cursor',
  buildInvocation({ prompt, config, extraArgs }) {
    const args = [
      // -p/--print: headless; prints and exits, with access to all tools including write and shell.
      '--print',
      // NDJSON events: init, assistant messages, tool calls, and a final result with token usage.
      '--output-format',
      'stream-json',
      // --force: allow every command unless explicitly denied.
      '--force',
      // --trust: trust the workspace without the interactive prompt (else exit 1 before any work).
      '--trust',
    ];
    // --model: the model to use (e.g. auto, sonnet-4).
    if (config.cli.model) args.push('--model', config.cli.model);
    args.push(...config.cli.args, ...extraArgs);
    const command = config.cli.command ?? 'cursor-agent';
    if (Buffer.byteLength(prompt) <= CURSOR_ARG_PROMPT_MAX_BYTES && !prompt.includes('\0'))
      return { command, args: [...args, '--', prompt], stdin: null, env: {} };
    // Too long for an argument: piped on stdin, which print mode reads as the prompt.
    return { command, args, stdin: prompt, env: {} };
  },
  createParser: createCursorParser,
  classifyExit: classifyCursorExit,
};

/** Where cursor-agent keeps its login on Linux: $XDG_CONFIG_HOME/cursor. */
const cursorConfigDir = (env: NodeJS.ProcessEnv, home: string): string =>
  join(xdgDir('config', env, home), 'cursor');

/** ~/.cursor: its CLI config, chats and projects (and, on some systems, its login). */
const cursorHome = (home: string): string => join(home, '.cursor');

/** Cursor CLI: its adapter, and how it is installed and logged in to. */
export const cursor: AgentCliDefinition = {
  name: 'cursor',
  modelFlag: '--model',
  // Not named like the backend.
  executable: 'cursor-agent',
  install: 'curl https://cursor.com/install -fsS | bash',
  // CURSOR_API_KEY, or `cursor-agent login` into ~/.config/cursor/auth.json (Linux), ~/.cursor/auth.json,
  // or the macOS Keychain (cursor.com/docs/cli/reference/authentication).
  auth: {
    login: 'run `cursor-agent login`, or set CURSOR_API_KEY',
    env: ['CURSOR_API_KEY'],
    files: (env, home) => [
      { path: join(cursorConfigDir(env, home), 'auth.json') },
      { path: join(cursorHome(home), 'auth.json') },
    ],
    hidden: macKeychain,
  },
  // Its install script puts the versions it updates in ~/.local/share/cursor-agent (not XDG).
  sandboxHome: (env, home) => [
    cursorConfigDir(env, home),
    cursorHome(home),
    join(home, '.local', 'share', 'cursor-agent'),
  ],
  adapter: () => cursorBackend,
};
