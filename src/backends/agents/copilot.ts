import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DURATION_PHRASE, parseDuration } from '../../state/io/time-format.ts';
import { type AgentCliDefinition, dirOr, xdgDir } from '../definition.ts';
import { endedCleanly, finalRateLimit } from '../parsers/classify-exit.ts';
import { createJsonLinesParser, type Json, num, obj, str } from '../parsers/json-lines.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo, OutputParser } from '../types.ts';

/**
 * Prompts up to this many bytes go as the `--prompt=` argument; longer ones go on stdin (copilot reads a
 * piped prompt when no `-p` is given), since Linux caps one argument at 128 KiB.
 */
export const COPILOT_ARG_PROMPT_MAX_BYTES = 100_000;

/** Prefix of the error events built from `session.error` (its `errorType` in brackets). */
const SESSION_ERROR = /^copilot session\.error \[([\w-]+)\] /;
const LIMIT_STATUSES = new Set([429, 529]);
const CONTEXT =
  /maximum context length|context[_ ]length[_ ]exceeded|context window|prompt is too long|too many tokens/i;
/** Failures before the stream starts: copilot prints them on stderr and exits 1 with no JSON. */
const STDERR_AUTH =
  /^Error: (?:No authentication information found|Classic Personal Access Tokens|.*token (?:is )?(?:invalid|expired|revoked))/im;
const STDERR_ERROR = /^Error: (.+)$/m;

const RETRY_IN = new RegExp(`(?:try again|retry) (?:in|after) (${DURATION_PHRASE})`, 'i');

/**
 * The wait a GitHub Copilot rate-limit message names, as epoch ms: "Please try again in 2 hours.",
 * "try again in 1 hour 30 minutes", "Please retry after 2733 seconds." Undefined when it names none.
 */
export function parseCopilotResetTime(message: string, now: number = Date.now()): number | undefined {
  const ms = parseDuration(RETRY_IN.exec(message)?.[1] ?? '');
  return ms !== undefined && ms > 0 ? now + ms : undefined;
}

/** Text of a tool result (`result.content`, or an error's message). */
function toolOutput(data: Json): string {
  const result = obj(data.result);
  if (typeof result.content === 'string') return result.content;
  const error = obj(data.error);
  return str(error.message) || str(data.error);
}

/**
 * Parser for `copilot --output-format json` (JSONL session events). Text comes from complete
 * `assistant.message` events (the `…_delta` ones repeat it in pieces), tool calls from their
 * `toolRequests` and `tool.execution_complete`; `session.error` is the CLI's final word on a
 * failure and `result` ends the run. Copilot 1.0.102 puts no token counts on stdout (only
 * `premiumRequests` in `result`); `assistant.usage` events, should a version print them, are read.
 */
export function createCopilotParser(): OutputParser {
  let lastText = '';

  const parseObject = (o: Json): AgentEvent[] => {
    const data = obj(o.data);
    // Sub-agent events carry an agentId: their text is not the run's answer.
    const subAgent = typeof o.agentId === 'string';
    switch (o.type) {
      case 'session.tools_updated':
        return str(data.model) ? [{ type: 'system', model: str(data.model) }] : [];
      case 'assistant.message': {
        const events: AgentEvent[] = [];
        const content = str(data.content);
        if (content) {
          events.push({ type: 'text', text: content });
          if (!subAgent) lastText = content;
        }
        for (const request of Array.isArray(data.toolRequests) ? (data.toolRequests as Json[]) : [])
          events.push({
            type: 'tool_call',
            name: str(request.name) || '?',
            id: str(request.toolCallId) || undefined,
            input: request.arguments,
          });
        return events;
      }
      case 'tool.execution_complete': {
        const exitCode = num(obj(data.shellExecution).exitCode);
        return [
          {
            type: 'tool_result',
            id: str(data.toolCallId) || undefined,
            output: toolOutput(data),
            isError: data.success === false || exitCode !== 0,
          },
        ];
      }
      case 'assistant.usage':
        return [
          {
            type: 'usage',
            usage: {
              inputTokens: num(data.inputTokens),
              outputTokens: num(data.outputTokens),
              cacheReadTokens: num(data.cacheReadTokens),
              cacheWriteTokens: num(data.cacheWriteTokens),
            },
            messageId: str(data.apiCallId) || str(o.id) || undefined,
            model: str(data.model) || undefined,
          },
        ];
      case 'model.call_failure': {
        // One failed model call; copilot retries it (assistant.turn_retry) or gives up with session.error.
        const status = num(data.statusCode);
        const message = `model call failed (HTTP ${status || '?'}): ${str(data.errorMessage)}`;
        if (LIMIT_STATUSES.has(status)) return [{ type: 'rate_limit', message, retrying: true }];
        return [{ type: 'error', message }];
      }
      case 'session.error': {
        const errorType = str(data.errorType) || 'unknown';
        const message = str(data.message) || errorType;
        if (errorType === 'rate_limit' || errorType === 'quota')
          return [
            {
              type: 'rate_limit',
              message,
              resetAt: parseCopilotResetTime(message, Date.now()),
              retrying: false,
            },
          ];
        return [{ type: 'error', message: `copilot session.error [${errorType}] ${message}` }];
      }
      case 'result': {
        const failed = num(o.exitCode) !== 0;
        return [
          { type: 'system', sessionId: str(o.sessionId) || undefined },
          // No tokens or cost: copilot bills in premium requests and prints no token counts here.
          { type: 'result', text: lastText, isError: failed },
        ];
      }
      default:
        // user.message, turn_start/end, model.call_start/finished, deltas, tool progress, …
        return [];
    }
  };

  return createJsonLinesParser({
    parseObject,
    finalText: (plainText) => lastText || plainText(),
  });
}

/** A `session.error` (its type and message) as an exit class. */
function classifySessionError(errorType: string, message: string): ExitClass {
  if (errorType === 'authentication' || errorType === 'authorization') return { kind: 'auth_error', message };
  if (errorType === 'context_limit' || CONTEXT.test(message)) return { kind: 'context_overflow', message };
  return { kind: 'agent_error', message };
}

/**
 * How a copilot run ended, from its structured output only: the last `session.error` (its
 * `errorType`: rate_limit/quota, authentication/authorization, context_limit, query, …) and the
 * `result` exit code; never assistant text or tool output. A failure before the JSON stream (not
 * logged in, a token it cannot validate) exists only on stderr, which is read only then.
 */
export function classifyCopilotExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const limit = finalRateLimit(info.events);
  if (limit) return limit;
  const result = info.events.findLast((e) => e.type === 'result');
  const sessionError = info.events
    .flatMap((e) => (e.type === 'error' ? [SESSION_ERROR.exec(e.message)] : []))
    .findLast((m) => m !== null);
  if (sessionError)
    return classifySessionError(sessionError[1]!, sessionError.input.slice(sessionError[0].length));
  if (endedCleanly(result, info)) return { kind: 'success' };
  if (info.signal) return { kind: 'agent_error', message: `copilot was killed by ${info.signal}` };
  if (!result) {
    const stderrError = STDERR_ERROR.exec(info.stderrTail)?.[1]?.trim();
    if (STDERR_AUTH.test(info.stderrTail))
      return { kind: 'auth_error', message: stderrError ?? 'not logged in' };
    if (stderrError) return { kind: 'agent_error', message: stderrError };
    if (info.exitCode === 0) return { kind: 'agent_error', message: 'copilot exited without a result' };
  }
  return { kind: 'agent_error', message: `copilot exited with code ${info.exitCode}` };
}

/**
 * GitHub Copilot CLI (`copilot`, npm @github/copilot), headless. Flags checked against
 * `copilot --help` of 1.0.102. Prompt as the `--prompt=` argument, or on stdin when too long for one.
 * Works with a GitHub login, or offline against any provider via COPILOT_PROVIDER_BASE_URL (BYOK).
 */
export const copilotBackend: Backend = {
  name: 'copilot',
  buildInvocation({ prompt, config, extraArgs }) {
    const args = [
      // JSONL on stdout: one session event per line, then a `result` with the exit code.
      '--output-format',
      'json',
      // = --allow-all-tools --allow-all-paths --allow-all-urls; --allow-all-tools is required headless.
      '--allow-all',
      // No ask_user tool: the agent works on without waiting for answers nobody will give.
      '--no-ask-user',
    ];
    // --model: the model for the session (or `auto`).
    if (config.cli.model) args.push('--model', config.cli.model);
    args.push(...config.cli.args, ...extraArgs);
    const command = config.cli.command ?? 'copilot';
    // -p/--prompt: run this prompt non-interactively and exit. The `=` form keeps a prompt that
    // starts with "-" a value (`-p "- item"` is refused as a malformed command).
    if (Buffer.byteLength(prompt) <= COPILOT_ARG_PROMPT_MAX_BYTES && !prompt.includes('\0'))
      return { command, args: [...args, `--prompt=${prompt}`], stdin: null, env: {} };
    // Without -p, a piped prompt is read from stdin (same non-interactive mode, no size limit).
    return { command, args, stdin: prompt, env: {} };
  },
  // --deny-tool: refused even with --allow-all (`shell`, `shell(git push)`, `write`); repeatable.
  denyTools: (inv, { tools }) => ({ ...inv, args: [...inv.args, ...tools.map((t) => `--deny-tool=${t}`)] }),
  createParser: createCopilotParser,
  classifyExit: classifyCopilotExit,
};

/** $COPILOT_HOME, else ~/.copilot: one directory for its config, login, sessions, logs and database. */
const copilotHome = (env: NodeJS.ProcessEnv, home: string): string =>
  dirOr(env.COPILOT_HOME, join(home, '.copilot'));

/** GitHub Copilot CLI: its adapter, and how it is installed and logged in to. */
export const copilot: AgentCliDefinition = {
  name: 'copilot',
  modelFlag: '--model',
  executable: 'copilot',
  install: 'npm install -g @github/copilot',
  // COPILOT_GITHUB_TOKEN / GH_TOKEN / GITHUB_TOKEN, else the /login recorded in $COPILOT_HOME
  // (default ~/.copilot)/config.json, else gh's login
  // (docs.github.com/copilot/how-tos/copilot-cli/set-up-copilot-cli/authenticate-copilot-cli).
  auth: {
    login: 'run `copilot`, then /login, or set COPILOT_GITHUB_TOKEN',
    env: ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'],
    files: (env, home) => [
      {
        path: join(copilotHome(env, home), 'config.json'),
        holds: (text) => /"logged_in_users"\s*:\s*\[\s*\{/.test(text),
      },
    ],
    hidden: (env, home) => {
      const hosts = join(xdgDir('config', env, home), 'gh', 'hosts.yml');
      return existsSync(hosts) ? 'Copilot falls back to the gh CLI login' : undefined;
    },
  },
  // Not gh's login (~/.config/gh): under the sandbox it logs in with COPILOT_GITHUB_TOKEN or its own /login.
  sandboxHome: (env, home) => [copilotHome(env, home)],
  adapter: () => copilotBackend,
};
