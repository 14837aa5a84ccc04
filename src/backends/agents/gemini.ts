import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentCliDefinition, dirOr, envFileSets } from '../definition.ts';
import { finalRateLimit } from '../parsers/classify-exit.ts';
import { createJsonLinesParser, type Json, num, str } from '../parsers/json-lines.ts';
import type {
  AgentEvent,
  Backend,
  DenyToolsContext,
  ExitClass,
  ExitInfo,
  OutputParser,
  Usage,
} from '../types.ts';
import { parseResetTime } from './claude.ts';

/**
 * Prompts up to this many bytes go as the `--prompt=` argument; longer ones go on stdin, since Linux
 * caps one argument at 128 KiB (MAX_ARG_STRLEN). Gemini CLI reads stdin when it is not a terminal
 * (up to 8 MiB) and puts it before the `--prompt` text, so `--prompt=` with an empty value sends
 * exactly the stdin text.
 */
export const GEMINI_ARG_PROMPT_MAX_BYTES = 100_000;

/** Flags of `gemini` that already choose an approval mode: then Ralph adds no `--yolo`. */
const APPROVAL_FLAGS = /^(-y|--yolo(=.*)?|--approval-mode(=.*)?)$/;

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

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

const QUOTA =
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
  const retry = /retry (?:in|after) (\d+(?:\.\d+)?)(ms|s|m|h)\b/i.exec(message);
  if (retry) {
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[retry[2]!.toLowerCase() as 'ms'];
    return now + Math.ceil(Number(retry[1]) * unit);
  }
  if (/daily quota|per ?day/i.test(message)) return parseResetTime('resets 12am (America/Los_Angeles)', now);
  return undefined;
}

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
        if (isError && QUOTA.test(errorMessage) && errorMessage !== lastLimit) {
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

  if (info.exitCode === GEMINI_EXIT.http429 || (structured !== undefined && QUOTA.test(structured)))
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

/**
 * Google Gemini CLI, headless: `gemini -o stream-json --yolo --skip-trust --prompt=<prompt>`, or the
 * prompt on stdin when it is too long for one argument. Checked against `gemini --help` of
 * @google/gemini-cli 0.61.0. Its output names the models it used, so the adapter needs no options.
 */
export const geminiBackend: Backend = {
  name: 'gemini',
  buildInvocation({ prompt, config, extraArgs }) {
    const user = [...config.cli.args, ...extraArgs];
    // -o stream-json: JSONL events on stdout (init, message deltas, tool_use/tool_result, result with stats).
    const args = ['-o', 'stream-json'];
    // --yolo: run every tool without asking (nobody is there to approve), unless cli.args choose an
    // approval mode (gemini refuses --yolo together with --approval-mode).
    if (!user.some((a) => APPROVAL_FLAGS.test(a))) args.push('--yolo');
    // --skip-trust: trust the workspace for this session; headless gemini exits 55 in a folder it
    // has not been told to trust (and would downgrade --yolo to asking).
    args.push('--skip-trust');
    if (config.cli.model) args.push('-m', config.cli.model); // -m: the model (else gemini's `auto` routing)
    args.push(...user);
    // A prompt starting with "/" would run as a gemini slash command: a leading newline keeps it text.
    const text = /^\/(?![/*])/.test(prompt) ? `\n${prompt}` : prompt;
    const command = config.cli.command ?? 'gemini';
    // --prompt=<text>: headless mode with this prompt. The `=` form keeps a prompt that starts with
    // "-" (a markdown list) from being read as a flag (`-p "- item"` exits 1).
    if (Buffer.byteLength(text) <= GEMINI_ARG_PROMPT_MAX_BYTES && !text.includes('\0'))
      return { command, args: [...args, `--prompt=${text}`], stdin: null, env: {} };
    // Too long for an argument: stdin, with an empty --prompt= so gemini sends exactly the stdin text.
    return { command, args: [...args, '--prompt='], stdin: text, env: {} };
  },
  denyTools: (inv, ctx) => ({ ...inv, args: [...inv.args, `--policy=${writeGeminiDenyPolicy(ctx)}`] }),
  createParser: createGeminiParser,
  classifyExit: (info) => classifyGeminiExit(info),
};

/**
 * Gemini CLI's policy engine refuses tools by rule (`--policy FILE`, a TOML file of `[[rule]]`s;
 * geminicli.com/docs/reference/policy-engine). A user-tier `deny` outranks the `--yolo` allow-all.
 * Written under `.ralph/gemini/`, named by its content so concurrent hats never clash.
 */
function writeGeminiDenyPolicy({ tools, runtimeDir }: DenyToolsContext): string {
  const toml = tools
    .map((tool) => `[[rule]]\ntoolName = ${JSON.stringify(tool)}\ndecision = "deny"\npriority = 999\n`)
    .join('\n');
  const dir = join(runtimeDir, 'gemini');
  const file = join(dir, `deny-${createHash('sha256').update(toml).digest('hex').slice(0, 12)}.toml`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, toml);
  return file;
}

/** Gemini CLI: its adapter, how it is installed and logged in to, and how `ralph plan` opens it. */
export const gemini: AgentCliDefinition = {
  name: 'gemini',
  modelFlag: '-m',
  executable: 'gemini',
  install: 'npm install -g @google/gemini-cli',
  // OAuth in ~/.gemini/oauth_creds.json, or gemini-credentials.json (its encrypted file store);
  // $GEMINI_CLI_HOME replaces the home directory; ~/.gemini/.env is loaded
  // (geminicli.com/docs/get-started/authentication; @google/gemini-cli 0.61.0's bundle).
  auth: {
    login: 'run `gemini` and sign in with Google, or set GEMINI_API_KEY',
    env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI'],
    files: (env, home) => {
      const base = join(dirOr(env.GEMINI_CLI_HOME, home), '.gemini');
      return [
        { path: join(base, 'oauth_creds.json') },
        { path: join(base, 'gemini-credentials.json') },
        { path: join(base, '.env'), holds: envFileSets(['GEMINI_API_KEY', 'GOOGLE_API_KEY']) },
      ];
    },
  },
  adapter: () => geminiBackend,
  // `-i/--prompt-interactive`: "Execute the provided prompt and continue in interactive mode";
  // `-p` is headless (geminicli.com/docs/cli/cli-reference).
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'gemini',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, '-i', prompt],
  }),
};
