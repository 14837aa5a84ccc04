import { join } from 'node:path';
import { globOf, isNegated } from '../../config/path-patterns.ts';
import { sandboxSettings } from '../../sandbox/sandbox-types.ts';
import { type AgentCliDefinition, dirOr, macKeychain, runningAsRoot, xdgDir } from '../definition.ts';
import { lastLine } from '../parsers/json-lines.ts';
import { parseResetTime } from '../parsers/reset-time.ts';
import { createStreamJsonParser } from '../parsers/stream-json.ts';
import type { AgentEvent, Backend, ExitClass, ExitInfo } from '../types.ts';

/**
 * Claude Code (`claude`), headless. Checked against `claude --help` of @anthropic-ai/claude-code
 * 2.1.329. The prompt goes on stdin (`claude -p` reads it there when no prompt argument is given),
 * so a prompt of any size reaches the agent intact.
 */
export const claudeBackend: Backend = {
  name: 'claude',
  buildInvocation({ prompt, config, extraArgs }) {
    const user = [...config.cli.args, ...extraArgs];
    const sandbox = sandboxSettings(config);
    const native = sandbox.mode === 'native';
    const args = [
      // --print: answer the prompt and exit (non-interactive, skips the workspace trust dialog).
      '-p',
      // One JSON object per line: init, assistant/user messages, retries, and a final result with usage and cost.
      '--output-format',
      'stream-json',
      // Required by --print with --output-format stream-json (the CLI refuses it otherwise).
      '--verbose',
    ];
    // Run every tool without asking (nobody is there to answer a permission prompt), or, with
    // `sandbox: native`, its own sandbox; a permission mode chosen in cli.args wins.
    if (native) args.push(...claudeNativeSandboxArgs(sandbox.network, user));
    else args.push('--dangerously-skip-permissions');
    // --model: the model for this session (an alias such as `sonnet`, or a full model name).
    if (config.cli.model) args.push('--model', config.cli.model);
    args.push(...user);
    return {
      command: config.cli.command ?? 'claude',
      args,
      stdin: prompt,
      // IS_SANDBOX only unlocks the bypass flag for root, which native mode does not pass.
      env: native ? {} : claudeEnv(),
    };
  },
  // --disallowedTools: these tools are removed from the model's tool list (`Bash`, `Edit`, `Bash(git push:*)`).
  // One comma-separated value after the prompt-less arguments, so it never swallows another argument.
  denyTools: (inv, { tools }) => ({ ...inv, args: [...inv.args, '--disallowedTools', tools.join(',')] }),
  // `rules.deny` as `Edit(//<workspace>/<glob>)` rules, passed in the same --disallowedTools value.
  pathDenyTools: claudeEditDenyRules,
  createParser: createStreamJsonParser,
  classifyExit: classifyClaudeExit,
};

/** Flags of `claude` that already choose a permission mode: then native mode adds none of its own. */
const PERMISSION_FLAGS = /^(--permission-mode(=.*)?|--(allow-)?dangerously-skip-permissions)$/;

/**
 * `sandbox: native`: Claude Code's sandbox settings (2.1.329's schema). Its Bash tool runs in the
 * sandbox (bubblewrap + socat on Linux, Seatbelt on macOS) without asking, never outside it, and
 * the CLI refuses to start when the sandbox cannot (instead of running unsandboxed); file edits are
 * accepted in the workspace only (acceptEdits), and whatever would still ask is refused in --print.
 * Its network goes through Claude Code's proxy to the domains your settings allow; `sandbox.network:
 * off` denies every domain. A `--settings` in cli.args replaces these settings.
 */
export function claudeNativeSandboxArgs(network: 'on' | 'off', user: readonly string[] = []): string[] {
  const settings = {
    sandbox: {
      enabled: true,
      failIfUnavailable: true,
      autoAllowBashIfSandboxed: true,
      allowUnsandboxedCommands: false,
      ...(network === 'off' ? { network: { deniedDomains: ['*'] } } : {}),
    },
  };
  const mode = user.some((a) => PERMISSION_FLAGS.test(a)) ? [] : ['--permission-mode', 'acceptEdits'];
  return [...mode, '--settings', JSON.stringify(settings)];
}

/** $CLAUDE_CONFIG_DIR, else ~/.claude: settings, login, sessions, todos, shell snapshots. */
const claudeDir = (env: NodeJS.ProcessEnv, home: string): string =>
  dirOr(env.CLAUDE_CONFIG_DIR, join(home, '.claude'));

/** Its global state file beside ~/.claude, and the backup it keeps (none with $CLAUDE_CONFIG_DIR set). */
const claudeStateFiles = (env: NodeJS.ProcessEnv, home: string): string[] =>
  env.CLAUDE_CONFIG_DIR ? [] : [join(home, '.claude.json'), join(home, '.claude.json.backup')];

/** Claude Code: its adapter, how it is installed and logged in to, and how `ralph plan` opens it. */
export const claude: AgentCliDefinition = {
  name: 'claude',
  modelFlag: '--model',
  executable: 'claude',
  install: 'npm install -g @anthropic-ai/claude-code',
  // Claude Code keeps its login in $CLAUDE_CONFIG_DIR (default ~/.claude)/.credentials.json on Linux
  // and in the Keychain on macOS (code.claude.com/docs/en/authentication; CLI 2.1.329's bundle).
  auth: {
    login: 'run `claude`, then /login, or set ANTHROPIC_API_KEY',
    env: [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_OAUTH_TOKEN',
      'CLAUDE_CODE_USE_BEDROCK',
      'CLAUDE_CODE_USE_VERTEX',
    ],
    files: (env, home) => [{ path: join(claudeDir(env, home), '.credentials.json') }],
    hidden: macKeychain,
  },
  // Its global state file sits in $CLAUDE_CONFIG_DIR when set, else beside ~/.claude (with a backup);
  // its cache under $XDG_CACHE_HOME/claude-cli; the native installer's versions and locks under
  // ~/.local/share/claude and ~/.local/state/claude (CLI 2.1.329's bundle).
  sandboxHome: (env, home) => {
    return [
      claudeDir(env, home),
      ...claudeStateFiles(env, home),
      join(xdgDir('cache', env, home), 'claude-cli'),
      join(xdgDir('data', env, home), 'claude'),
      join(xdgDir('state', env, home), 'claude'),
    ];
  },
  sandboxHomeFiles: claudeStateFiles,
  nativeSandbox: {
    covers:
      'its Bash commands write only the workspace and the temp dir (never git hooks or git config), reach only the domains your Claude Code settings allow (none with sandbox.network: off) and never run outside it; its file edits stay in the workspace',
    misses:
      'reads outside the workspace (your home’s keys included, unless your settings deny them) and .ralph/ inside the workspace; on Linux it needs bubblewrap and socat, and stops at start without them',
  },
  adapter: () => claudeBackend,
  // `claude "query"` starts the REPL with an initial prompt; `-p` would print and exit
  // (docs.anthropic.com/en/docs/claude-code/cli-reference).
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'claude',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, prompt],
    env: claudeEnv(),
  }),
  // Claude Code refuses to start inside another Claude Code session.
  nestingGuards: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT'],
  hostNotes: () => (runningAsRoot() ? [ROOT_NOTE] : []),
};

const ROOT_NOTE =
  'running as root: Ralph sets IS_SANDBOX=1 for Claude Code, which refuses --dangerously-skip-permissions as root';

/** Claude Code's environment additions: `IS_SANDBOX=1` lets it skip permissions as root. */
export function claudeEnv(root: boolean = runningAsRoot()): Record<string, string> {
  return root ? { IS_SANDBOX: '1' } : {};
}

/**
 * `rules.deny` as Claude Code permission rules for `--disallowedTools` (pure). An `Edit(<pattern>)`
 * rule covers every built-in file-editing tool (Edit, Write, MultiEdit, NotebookEdit), and a deny
 * rule holds in every permission mode, `--dangerously-skip-permissions` included
 * (code.claude.com/docs/en/permissions). Its patterns are gitignore-style, so a slash-free one
 * (`./.env*`) matches at any depth, where Ralph's is the workspace root's only (checked against
 * the CLI): each glob is anchored as `//<workspace>/<glob>`, an absolute path. When the workspace
 * path itself is not plain, only globs with a `/` inside (anchored by gitignore) go, as `./<glob>`.
 *
 * Only a glob both read the same way is passed: plain names, `*` within a name, `**` as a whole
 * segment. Negations, braces, character classes, `?`, extglobs, escapes, `.`/`..` segments and
 * anything else are left to Ralph's own check after the iteration, which stays the authority for
 * every rule. A glob that a later `!pattern` takes back from is not passed either (Claude Code
 * has no exception to a deny rule), nor are `allow` (a deny rule has no "except these") and
 * `approve` (a person may approve those changes).
 */
export function claudeEditDenyRules(deny: readonly string[], workspace: string): string[] {
  const lastNegation = deny.findLastIndex(isNegated);
  const inner = /^\/[\w.\-/]*$/.test(workspace) ? workspace.replace(/^\/+|\/+$/g, '') : '';
  const root = inner ? `//${inner}/` : null;
  return [...new Set(deny.slice(lastNegation + 1).flatMap((p) => editRulesOf(p, root)))];
}

/** Characters a passed glob may hold: word characters, `.`, `-`, `/` and `*`. */
const PLAIN = /^[\w.\-/*]+$/;
/** A segment: `**` alone, or a name with single `*`s (no `**` inside a name). */
const SEGMENT = /^(?:\*\*|(?:[\w.-]|\*(?!\*))+)$/;

/** One Ralph deny glob as Claude Code Edit rules, or none when the two may read it differently. */
function editRulesOf(pattern: string, root: string | null): string[] {
  if (!PLAIN.test(pattern)) return [];
  const glob = globOf(pattern);
  const segments = glob.split('/');
  if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) return [];
  if (!root && segments.length < 2) return [];
  const at = (g: string) => `Edit(${root ?? './'}${g})`;
  // A trailing `/` selects directories only: their contents. Otherwise the path itself too, and,
  // as in Ralph, everything inside it when it is a directory (`x/**` already is everything inside).
  const dirOnly = /[^/]\/+$/.test(pattern);
  if (segments.at(-1) === '**') return dirOnly ? [] : [at(glob)];
  return dirOnly ? [at(`${glob}/**`)] : [at(glob), at(`${glob}/**`)];
}

type ResultEvent = Extract<AgentEvent, { type: 'result' }>;
type RateLimitEvent = Extract<AgentEvent, { type: 'rate_limit' }>;

/** Old CLI versions print a usage limit as the whole result: `Claude AI usage limit reached|<epoch s>`. */
const LEGACY_LIMIT = /^\s*Claude AI usage limit reached\|(\d{9,11})\s*$/;
const AUTH =
  /\bauthentication_failed\b|\bauthentication_error\b|\bHTTP 401\b|invalid api key|invalid x-api-key|not logged in|oauth token (?:has )?(?:expired|revoked)|please run \/login/i;
const CONTEXT =
  /prompt is too long|context (?:window|length) exceeded|context_length_exceeded|input is too long/i;
/** Claude Code's own wording for a limit it gave up on (older versions report no structured event). */
const LIMIT_TEXT =
  /usage limit reached|you(?:'|’)ve hit your (?:[\w'’-]+ )*limit|organi[sz]ation(?:'s)? (?:has reached its )?(?:monthly )?(?:usage|spend(?:ing)?) limit|API Error: (?:Request rejected )?\(?(?:429|529)\b|rate_limit_error|overloaded_error/i;

/**
 * How a Claude Code run ended. Only structured output counts: the `result` object (its text only
 * when the result itself is an error), the API errors and rate-limit events the CLI reports, and
 * the exit — never assistant text or tool results, which may quote anything the agent read.
 */
export function classifyClaudeExit(info: ExitInfo, now: number = Date.now()): ExitClass {
  if (info.killedBy) return { kind: 'killed', reason: info.killedBy };
  const result = [...info.events].reverse().find((e): e is ResultEvent => e.type === 'result');
  const legacy = result ? LEGACY_LIMIT.exec(result.text) : null;
  if (legacy)
    return {
      kind: 'rate_limit',
      message: 'Claude AI usage limit reached',
      resetAt: Number(legacy[1]) * 1000,
    };
  if (info.signal) return { kind: 'agent_error', message: `claude was terminated by ${info.signal}` };
  if (result && !result.isError && info.exitCode === 0) return { kind: 'success' };

  // A limit the CLI is still retrying (api_retry) is not how the run ended; a final one is.
  const finalLimit = info.events
    .filter((e): e is RateLimitEvent => e.type === 'rate_limit' && e.retrying !== true)
    .at(-1);
  const errors = info.events.flatMap((e) => (e.type === 'error' ? [e.message] : []));
  const resultText = result?.isError ? result.text : '';
  const message =
    resultText || errors.at(-1) || lastLine(info.stderrTail) || `claude exited with ${info.exitCode}`;

  if (finalLimit) {
    const resetAt = finalLimit.resetAt ?? parseResetTime(`${finalLimit.message}\n${resultText}`, now);
    return { kind: 'rate_limit', message: resultText || finalLimit.message, resetAt };
  }
  const structured = [...errors, resultText].join('\n');
  if (AUTH.test(structured)) return { kind: 'auth_error', message };
  if (CONTEXT.test(structured)) return { kind: 'context_overflow', message };
  // The CLI gave up on a 429/529 without a final rate-limit report (older versions).
  if (LIMIT_TEXT.test(resultText))
    return { kind: 'rate_limit', message, resetAt: parseResetTime(resultText, now) };
  if (!result && info.exitCode === 0)
    return { kind: 'agent_error', message: 'claude exited without a result' };
  return { kind: 'agent_error', message };
}
