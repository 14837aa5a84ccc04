import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxSettings } from '../../sandbox/sandbox-types.ts';
import { type AgentCliDefinition, dirOr, envFileSets } from '../definition.ts';
import { classifyGeminiExit } from '../parsers/gemini-errors.ts';
import { createGeminiParser } from '../parsers/gemini-stream.ts';
import type { Backend, DenyToolsContext } from '../types.ts';

/**
 * Prompts up to this many bytes go as the `--prompt=` argument; longer ones go on stdin, since Linux
 * caps one argument at 128 KiB (MAX_ARG_STRLEN). Gemini CLI reads stdin when it is not a terminal
 * (up to 8 MiB) and puts it before the `--prompt` text, so `--prompt=` with an empty value sends
 * exactly the stdin text.
 */
export const GEMINI_ARG_PROMPT_MAX_BYTES = 100_000;

/** Flags of `gemini` that already choose an approval mode: then Ralph adds no `--yolo`. */
const APPROVAL_FLAGS = /^(-y|--yolo(=.*)?|--approval-mode(=.*)?)$/;
/** Flags of `gemini` that already choose whether it runs in its sandbox: then Ralph adds no `--sandbox`. */
const SANDBOX_FLAGS = /^(-s|--sandbox(=.*)?|--no-sandbox)$/;

/** $GEMINI_CLI_HOME (else home)/.gemini: its settings, login, sessions and temp files. */
const geminiDir = (env: NodeJS.ProcessEnv, home: string): string =>
  join(dirOr(env.GEMINI_CLI_HOME, home), '.gemini');

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
    // --sandbox (`sandbox: native`): the whole CLI runs again inside docker/podman (Linux) or
    // sandbox-exec (macOS); still --yolo, since nobody is there to approve.
    if (sandboxSettings(config).mode === 'native' && !user.some((a) => SANDBOX_FLAGS.test(a)))
      args.push('--sandbox');
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
      const base = geminiDir(env, home);
      return [
        { path: join(base, 'oauth_creds.json') },
        { path: join(base, 'gemini-credentials.json') },
        { path: join(base, '.env'), holds: envFileSets(['GEMINI_API_KEY', 'GOOGLE_API_KEY']) },
      ];
    },
  },
  sandboxHome: (env, home) => [geminiDir(env, home)],
  // Its container mounts the workspace and a cleaned copy of settings.json, and passes on only its
  // own variables (the API keys, base URLs, the model): not PATH or RALPH_*.
  nativeSandbox: {
    covers:
      'on Linux the whole CLI runs in a docker or podman container that sees only the workspace (none of your home, its keys or logins); on macOS sandbox-exec keeps its writes to the workspace and its own dirs',
    misses:
      '.git/hooks, .git/config and .ralph/ inside the workspace, and the network (always on); in the container `ralph emit`/`ralph tools` are not there, so the agent reports with `<event>` tags',
  },
  adapter: () => geminiBackend,
  // `-i/--prompt-interactive`: "Execute the provided prompt and continue in interactive mode";
  // `-p` is headless (geminicli.com/docs/cli/cli-reference).
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'gemini',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, '-i', prompt],
  }),
};
