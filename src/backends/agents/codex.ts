import { join } from 'node:path';
import { type AgentCliDefinition, dirOr } from '../definition.ts';
import { finalRateLimit } from '../parsers/classify-exit.ts';
import { createJsonLinesParser, type Json, lastLine, num, str } from '../parsers/json-lines.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo, OutputParser, Usage } from '../types.ts';

/**
 * Prompts up to this many bytes go as the trailing argument; longer ones go on stdin (`codex exec -`),
 * since Linux caps one argument at 128 KiB (MAX_ARG_STRLEN).
 */
export const CODEX_ARG_PROMPT_MAX_BYTES = 100_000;

/** Flags of `codex exec` that already choose a sandbox/approval mode: then Ralph adds none of its own. */
const SANDBOX_FLAGS = /^(-s|--sandbox(=.*)?|--approve-for-me|--dangerously-bypass-approvals-and-sandbox)$/;

/** codex's own retry notices (`Reconnecting... 2/5 (…)`): the CLI is still retrying, not failing. */
const RETRY_NOTICE = /^Reconnecting\.\.\./;
const USAGE_LIMIT =
  /hit your (?:[\w'’-]+ )*limit|usage limit (has been )?reached|quota exceeded|organi[sz]ation has (?:reached|hit) its (?:monthly )?(?:usage|spend(?:ing)?) limit/i;
const RATE_LIMIT = /\b429\b|too many requests|rate.?limit/i;
const AUTH =
  /\b401\b|unauthori[sz]ed|missing environment variable|invalid[_ ]api[_ ]key|incorrect api key|access token could not be refreshed|refresh token|not logged in|log ?in again|upgrade to plus/i;
const CONTEXT = /context window|context_length_exceeded|maximum context length/i;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

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
  const inMatch =
    /try again in ((?:\s*\d+\s*(?:days?|hours?|minutes?|mins?|seconds?|secs?)[,\s]*(?:and)?)+)/i.exec(
      message,
    );
  if (inMatch) {
    let ms = 0;
    for (const part of inMatch[1]!.matchAll(/(\d+)\s*(d|h|m|s)/gi)) {
      const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[part[2]!.toLowerCase() as 'd'];
      ms += Number(part[1]) * unit;
    }
    return ms > 0 ? now + ms : undefined;
  }
  return undefined;
}

/** `turn.completed` usage → Ralph's usage; codex's `input_tokens` include the cached ones. */
export function readCodexUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as Json;
  const cached = num(u.cached_input_tokens);
  return {
    inputTokens: Math.max(0, num(u.input_tokens) - cached),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: num(u.cache_write_input_tokens),
  };
}

function mcpResultText(item: Json): string {
  const error = item.error as Json | null | undefined;
  if (error && typeof error === 'object') return str(error.message);
  const result = item.result as Json | null | undefined;
  const content = result && Array.isArray(result.content) ? (result.content as Json[]) : [];
  return content.map((c) => str(c.text)).join('');
}

/** Parser for `codex exec --json` (JSONL: thread/turn/item events); the final text is the last agent message. */
export function createCodexParser(model?: string): OutputParser {
  let lastMessage = '';
  let turns = 0;
  let threadId = '';
  let lastLimit = '';
  const announced = new Set<string>();

  const limitEvent = (message: string): AgentEvent[] => {
    if (message === lastLimit) return [];
    lastLimit = message;
    return [{ type: 'rate_limit', message, resetAt: parseCodexResetTime(message) }];
  };

  const toolCall = (item: Json): AgentEvent[] => {
    const id = str(item.id);
    if (announced.has(id)) return [];
    announced.add(id);
    switch (item.type) {
      case 'command_execution':
        return [{ type: 'tool_call', name: 'shell', id, input: { command: item.command } }];
      case 'file_change':
        return [{ type: 'tool_call', name: 'file_change', id, input: { changes: item.changes } }];
      case 'mcp_tool_call':
        return [
          { type: 'tool_call', name: `${str(item.server)}.${str(item.tool)}`, id, input: item.arguments },
        ];
      case 'web_search':
        return [{ type: 'tool_call', name: 'web_search', id, input: { query: item.query } }];
      default:
        return [];
    }
  };

  const itemCompleted = (item: Json): AgentEvent[] => {
    const id = str(item.id);
    switch (item.type) {
      case 'agent_message':
        lastMessage = str(item.text);
        return [{ type: 'text', text: lastMessage }];
      case 'command_execution':
        return [
          ...toolCall(item),
          {
            type: 'tool_result',
            id,
            output: str(item.aggregated_output),
            isError: item.status === 'failed' || item.status === 'declined' || num(item.exit_code) !== 0,
          },
        ];
      case 'file_change': {
        const changes = Array.isArray(item.changes) ? (item.changes as Json[]) : [];
        return [
          ...toolCall(item),
          {
            type: 'tool_result',
            id,
            output: changes.map((c) => `${str(c.kind)} ${str(c.path)}`).join('\n'),
            isError: item.status === 'failed',
          },
        ];
      }
      case 'mcp_tool_call':
        return [
          ...toolCall(item),
          { type: 'tool_result', id, output: mcpResultText(item), isError: item.status === 'failed' },
        ];
      case 'web_search':
        return toolCall(item);
      case 'error':
        // A non-fatal notice inside the turn (e.g. a transport fallback); fatal ones come as `error`/`turn.failed`.
        return [{ type: 'error', message: str(item.message) }];
      default:
        return []; // reasoning, todo_list: not part of the answer
    }
  };

  const parseObject = (obj: Json): AgentEvent[] => {
    switch (obj.type) {
      case 'thread.started':
        threadId = str(obj.thread_id);
        return [{ type: 'system', sessionId: threadId || undefined, model }];
      case 'item.started':
      case 'item.updated':
        return toolCall((obj.item ?? {}) as Json);
      case 'item.completed':
        return itemCompleted((obj.item ?? {}) as Json);
      case 'turn.completed': {
        turns++;
        const usage = readCodexUsage(obj.usage);
        const out: AgentEvent[] = [];
        if (usage) out.push({ type: 'usage', usage, messageId: `${threadId}:turn-${turns}`, model });
        // codex reports no cost: costUsd stays undefined.
        out.push({ type: 'result', text: lastMessage, isError: false, usage, model });
        return out;
      }
      case 'turn.failed': {
        turns++;
        const message = str((obj.error as Json | undefined)?.message) || 'codex turn failed';
        return [
          ...(USAGE_LIMIT.test(message) ? limitEvent(message) : []),
          { type: 'result', text: message, isError: true, model },
        ];
      }
      case 'error': {
        const message = str(obj.message) || 'codex error';
        if (RETRY_NOTICE.test(message))
          return RATE_LIMIT.test(message)
            ? [{ type: 'rate_limit', message, retrying: true }]
            : [{ type: 'error', message }];
        if (USAGE_LIMIT.test(message)) return limitEvent(message);
        return [{ type: 'error', message }];
      }
      default:
        return []; // turn.started and anything newer
    }
  };

  return createJsonLinesParser({
    parseObject,
    finalText: () => lastMessage,
  });
}

/** Reads a failed message of codex's structured output (or its own stderr) as an exit class. */
function classifyMessage(message: string): ExitClass | undefined {
  if (USAGE_LIMIT.test(message))
    return { kind: 'rate_limit', message, resetAt: parseCodexResetTime(message) };
  if (AUTH.test(message)) return { kind: 'auth_error', message };
  if (CONTEXT.test(message)) return { kind: 'context_overflow', message };
  // "exceeded retry limit, last status: 429 Too Many Requests": codex's own retries ran out.
  if (RATE_LIMIT.test(message)) return { kind: 'rate_limit', message };
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
    if (e.type === 'error' && !RETRY_NOTICE.test(e.message)) messages.push(e.message);
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

/** Options of the codex adapter. */
export interface CodexBackendOptions {
  /** The model in use (`cli.model`), reported with usage so the context-window % is known. */
  model?: string | undefined;
}

/**
 * OpenAI Codex CLI: `codex exec --json`, headless and auto-approving, prompt as the trailing
 * argument (stdin is /dev/null) or, when too long for an argument, on stdin via `-`.
 */
export function createCodexBackend(options: CodexBackendOptions = {}): Backend {
  return {
    name: 'codex',
    buildInvocation({ prompt, config, extraArgs }) {
      const user = [...config.cli.args, ...extraArgs];
      const args = [
        'exec', // non-interactive: run one turn and exit
        '--json', // JSONL events on stdout (thread/turn/item), parsed below
        '--skip-git-repo-check', // a Ralph workspace need not be a git repository
        // bash -c instead of bash -lc for the shell tool: a login profile resets PATH, losing `ralph`
        '-c',
        'allow_login_shell=false',
      ];
      // No approval prompts and no sandbox (a headless loop cannot answer them; Ralph kills the
      // agent's whole process group), unless the user chose a sandbox mode in cli.args.
      if (!user.some((a) => SANDBOX_FLAGS.test(a))) args.push('--dangerously-bypass-approvals-and-sandbox');
      if (config.cli.model) args.push('-m', config.cli.model); // model override
      args.push(...user);
      // `--` ends the options, so a prompt that starts with "-" is still the prompt.
      if (Buffer.byteLength(prompt) <= CODEX_ARG_PROMPT_MAX_BYTES && !prompt.includes('\0'))
        return {
          command: config.cli.command ?? 'codex',
          args: [...args, '--', prompt],
          stdin: null,
          env: {},
        };
      // `-`: read the prompt from stdin (no argument-size limit).
      return { command: config.cli.command ?? 'codex', args: [...args, '--', '-'], stdin: prompt, env: {} };
    },
    createParser: () => createCodexParser(options.model),
    classifyExit: classifyCodexExit,
  };
}

/** The codex adapter with the model left to codex's own config. */
export const codexBackend: Backend = createCodexBackend();

/** OpenAI Codex CLI: its adapter, how it is installed and logged in to, and how `ralph plan` opens it. */
export const codex: AgentCliDefinition = {
  name: 'codex',
  modelFlag: '-m',
  executable: 'codex',
  install: 'npm install -g @openai/codex',
  // $CODEX_HOME (default ~/.codex)/auth.json after `codex login` (developers.openai.com/codex/auth).
  auth: {
    login: 'run `codex login`, or set CODEX_API_KEY',
    env: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
    files: (env, home) => [{ path: join(dirOr(env.CODEX_HOME, join(home, '.codex')), 'auth.json') }],
  },
  adapter: (config) => createCodexBackend({ model: config.cli.model }),
  // `codex "..."` opens the TUI with an initial prompt; `codex exec` is the non-interactive mode
  // (developers.openai.com/codex/cli/features, "Running in interactive mode").
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'codex',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, prompt],
  }),
};
