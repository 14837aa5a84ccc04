import { join } from 'node:path';
import { sandboxSettings } from '../../sandbox/sandbox-types.ts';
import { type AgentCliDefinition, dirOr } from '../definition.ts';
import { classifyCodexExit } from '../parsers/codex-errors.ts';
import { createCodexParser } from '../parsers/codex-stream.ts';
import type { Backend } from '../types.ts';

/**
 * Prompts up to this many bytes go as the trailing argument; longer ones go on stdin (`codex exec -`),
 * since Linux caps one argument at 128 KiB (MAX_ARG_STRLEN).
 */
export const CODEX_ARG_PROMPT_MAX_BYTES = 100_000;

/** Flags of `codex exec` that already choose a sandbox/approval mode: then Ralph adds none of its own. */
const SANDBOX_FLAGS = /^(-s|--sandbox(=.*)?|--approve-for-me|--dangerously-bypass-approvals-and-sandbox)$/;

/**
 * `sandbox: native`: codex's workspace-write sandbox (bubblewrap, shipped with codex, on Linux;
 * Seatbelt on macOS) for the commands the model runs: writes only to the workspace and the temp
 * dirs, `.git` read-only, network only when `sandbox.network` is on. `codex exec` never asks for
 * approval; the policy says so anyway, so a config.toml cannot make it wait for an answer.
 */
export function codexNativeSandboxArgs(network: 'on' | 'off'): string[] {
  const args = ['--sandbox', 'workspace-write', '-c', 'approval_policy="never"'];
  if (network === 'on') args.push('-c', 'sandbox_workspace_write.network_access=true');
  return args;
}

/** $CODEX_HOME, else ~/.codex: its config, login, sessions, logs and helper binaries. */
const codexHome = (env: NodeJS.ProcessEnv, home: string): string =>
  dirOr(env.CODEX_HOME, join(home, '.codex'));

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
      // Unless the user chose a sandbox mode in cli.args: codex's own sandbox (`sandbox: native`),
      // or no approval prompts and no sandbox (a headless loop cannot answer them; Ralph kills the
      // agent's whole process group).
      if (!user.some((a) => SANDBOX_FLAGS.test(a))) {
        const sandbox = sandboxSettings(config);
        if (sandbox.mode === 'native') args.push(...codexNativeSandboxArgs(sandbox.network));
        else args.push('--dangerously-bypass-approvals-and-sandbox');
      }
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
    files: (env, home) => [{ path: join(codexHome(env, home), 'auth.json') }],
  },
  // codex writes nowhere else in home; its sandbox refuses a CODEX_HOME under the temp dir.
  sandboxHome: (env, home) => [codexHome(env, home)],
  nativeSandbox: {
    covers:
      'the commands it runs write only the workspace and the temp dir (.git read-only, so the agent cannot commit), and reach the network only with sandbox.network: on',
    misses: 'reads anywhere (your home’s keys included), and .ralph/ inside the workspace stays writable',
  },
  adapter: (config) => createCodexBackend({ model: config.cli.model }),
  // `codex "..."` opens the TUI with an initial prompt; `codex exec` is the non-interactive mode
  // (developers.openai.com/codex/cli/features, "Running in interactive mode").
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'codex',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, prompt],
  }),
};
