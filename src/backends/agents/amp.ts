import { join } from 'node:path';
import { type AgentCliDefinition, xdgDir } from '../definition.ts';
import { classifyMessage, endedCleanly } from '../parsers/classify-exit.ts';
import { createJsonLinesParser, type Json, str } from '../parsers/json-lines.ts';
import { parseStreamJsonObject } from '../parsers/stream-json.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo, OutputParser } from '../types.ts';

const RATE_LIMIT = /\b429\b|rate.?limit|too many requests/i;
const AUTH = /invalid or missing api key|amp login|unauthori[sz]ed|\b401\b|no api key found/i;
const CONTEXT = /prompt is too long|context (?:window|length)|context_length_exceeded|too many tokens/i;
/** How Amp reports a failure before (or instead of) the JSON stream: `Error: …` on stderr, exit 1. */
const STDERR_ERROR = /^Error: (.+)$/m;

/**
 * Parser for `amp --execute --stream-json` (Claude Code-compatible lines: system init, assistant and
 * user messages with per-message usage, a final result). An error result carries its message in
 * `error` rather than `result`. Amp reports tokens but no cost.
 */
export function createAmpParser(): OutputParser {
  let resultText: string | undefined;
  let lastAssistant = '';

  const parseObject = (o: Json): AgentEvent[] => {
    const events = parseStreamJsonObject(o);
    if (o.type === 'assistant' && o.parent_tool_use_id == null) {
      const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('\n');
      if (text) lastAssistant = text;
    }
    if (o.type !== 'result') return events;
    // parseStreamJsonObject reads `result`; an error result says what went wrong in `error`.
    resultText = str(o.result) || str(o.error);
    return events.map((e) => (e.type === 'result' ? { ...e, text: resultText ?? '' } : e));
  };

  return createJsonLinesParser({
    parseObject,
    finalText: (plainText) => resultText ?? (lastAssistant || plainText()),
  });
}

/** A failure Amp reported (an error result's text, or its stderr `Error:` line) as an exit class. */
function classifyFailure(message: string): ExitClass {
  return classifyMessage(message, { auth: AUTH, context: CONTEXT, rateLimit: RATE_LIMIT });
}

/**
 * How an Amp run ended, from its structured output only: the `result` line (an error result's
 * `error`), and, when Amp failed before printing any JSON (no key, server unreachable), its
 * `Error:` line on stderr; never assistant text or tool results.
 */
export function classifyAmpExit(info: ExitInfo): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const result = info.events.findLast((e) => e.type === 'result');
  if (endedCleanly(result, info)) return { kind: 'success' };
  if (result?.type === 'result' && result.isError) return classifyFailure(result.text || 'amp run failed');
  if (info.signal) return { kind: 'agent_error', message: `amp was killed by ${info.signal}` };
  const stderrError = STDERR_ERROR.exec(info.stderrTail)?.[1]?.trim();
  if (!result && stderrError) return classifyFailure(stderrError);
  if (!result && info.exitCode === 0) return { kind: 'agent_error', message: 'amp exited without a result' };
  return { kind: 'agent_error', message: `amp exited with code ${info.exitCode}` };
}

/**
 * Amp (`amp`, npm @sourcegraph/amp → @ampcode/cli), execute mode. Flags checked against `amp --help`
 * of 0.0.1790142911 (`--dangerously-allow-all` is not listed there but is accepted, unlike an
 * unknown option, and is what Amp's own SDK passes). The prompt goes on stdin, as the SDK sends it.
 * Amp needs AMP_API_KEY (or a stored login): without one it waits for an interactive login.
 */
export const ampBackend: Backend = {
  name: 'amp',
  buildInvocation({ prompt, config, extraArgs }) {
    const args = [
      // -x/--execute: run the prompt (read from stdin) and exit.
      '--execute',
      // Claude Code-compatible stream JSON instead of only the last message.
      '--stream-json',
      // Run every tool without asking (the amp.dangerouslyAllowAll setting, for this run).
      '--dangerously-allow-all',
      // No IDE connection: an open editor's files and selection do not leak into the iteration's context.
      '--no-ide',
    ];
    // -m/--mode: Amp picks the model by agent mode (low, medium, high, ultra, or a plugin mode).
    if (config.cli.model) args.push('--mode', config.cli.model);
    args.push(...config.cli.args, ...extraArgs);
    return { command: config.cli.command ?? 'amp', args, stdin: prompt, env: {} };
  },
  createParser: createAmpParser,
  classifyExit: classifyAmpExit,
};

/** Amp's directory under one XDG base directory: settings in config, login in data, logs in cache. */
const ampDir = (kind: 'config' | 'data' | 'cache', env: NodeJS.ProcessEnv, home: string): string =>
  join(xdgDir(kind, env, home), 'amp');

/** Amp: its adapter, and how it is installed and logged in to. */
export const amp: AgentCliDefinition = {
  name: 'amp',
  modelFlag: '--mode',
  executable: 'amp',
  install: 'npm install -g @ampcode/cli',
  // AMP_API_KEY, or `amp login` into $XDG_DATA_HOME (default ~/.local/share)/amp/secrets.json
  // (ampcode.com manual). @sourcegraph/amp is deprecated in favour of @ampcode/cli (npm view).
  auth: {
    login: 'run `amp login`, or set AMP_API_KEY',
    env: ['AMP_API_KEY'],
    files: (env, home) => [{ path: join(ampDir('data', env, home), 'secrets.json') }],
  },
  // ~/.config/amp/settings.json (ampcode.com manual), the login in data, and its cache dir (not verified: no CLI here).
  sandboxHome: (env, home) => (['config', 'data', 'cache'] as const).map((kind) => ampDir(kind, env, home)),
  adapter: () => ampBackend,
};
