import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentCliDefinition, xdgDir } from '../definition.ts';
import { classifyOpencodeExit } from '../parsers/opencode-errors.ts';
import { createOpencodeParser } from '../parsers/opencode-stream.ts';
import type { Backend } from '../types.ts';

/** The session title Ralph gives every run: with a title set, opencode makes no extra (unreported) title model call. */
export const OPENCODE_SESSION_TITLE = 'Ralph loop iteration';

/** User arguments that already choose what Ralph would otherwise set. */
const TITLE_FLAG = /^--title(=.*)?$/;
const DIR_FLAG = /^--dir(=.*)?$/;

/** Options of the opencode adapter. */
export interface OpencodeBackendOptions {
  /** The model in use (`cli.model`, `provider/model`), reported with usage so the context-window % is known. */
  model?: string | undefined;
}

/**
 * opencode (`opencode run --format json`), headless and auto-approving. Checked against
 * `opencode run --help` of opencode-ai 1.18.33. The prompt always goes on stdin: opencode appends
 * stdin to the message, and a prompt given as an argument is altered (an argument with spaces is
 * wrapped in double quotes, its own quotes escaped), besides the 128 KiB argument limit.
 */
export function createOpencodeBackend(options: OpencodeBackendOptions = {}): Backend {
  return {
    name: 'opencode',
    buildInvocation({ prompt, config, workspace, extraArgs }) {
      const user = [...config.cli.args, ...extraArgs];
      const args = [
        'run', // non-interactive: send one message, run the session until it is idle, exit
        '--format', // raw JSON events on stdout, one per line, parsed above
        'json',
        // Approve permission requests (e.g. a path outside the workspace) instead of rejecting
        // them, which would end the session; rules the config explicitly denies stay denied.
        '--auto',
      ];
      // A fixed session title: otherwise opencode makes an extra model call for one, whose tokens
      // and cost it never reports.
      if (!user.some((a) => TITLE_FLAG.test(a))) args.push('--title', OPENCODE_SESSION_TITLE);
      // The directory to work in: opencode prefers $PWD over its real working directory.
      if (!user.some((a) => DIR_FLAG.test(a))) args.push('--dir', workspace);
      if (config.cli.model) args.push('-m', config.cli.model); // model as provider/model
      args.push(...user);
      return {
        command: config.cli.command ?? 'opencode',
        args,
        stdin: prompt,
        // A stale PWD (inherited from wherever Ralph was started) would move opencode and its tools there.
        env: { PWD: workspace },
      };
    },
    createParser: () => createOpencodeParser(options.model),
    classifyExit: classifyOpencodeExit,
  };
}

/** opencode's directory under one XDG base directory (config, data with its login, state, cache). */
const opencodeDir = (kind: 'config' | 'data' | 'state' | 'cache', env: NodeJS.ProcessEnv, home: string) =>
  join(xdgDir(kind, env, home), 'opencode');

/** The opencode adapter with the model left to opencode's own config. */
export const opencodeBackend: Backend = createOpencodeBackend();

/** OpenCode: its adapter, how it is installed and logged in to, and how `ralph plan` opens it. */
export const opencode: AgentCliDefinition = {
  name: 'opencode',
  modelFlag: '-m',
  executable: 'opencode',
  install: 'npm install -g opencode-ai',
  // $XDG_DATA_HOME (default ~/.local/share)/opencode/auth.json after `opencode auth login`, or
  // OPENCODE_AUTH_CONTENT (opencode.ai/docs; opencode-ai 1.18.33's binary), or a provider's key.
  auth: {
    login: 'run `opencode auth login`, or set a provider key such as ANTHROPIC_API_KEY',
    env: [
      'OPENCODE_AUTH_CONTENT',
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'GEMINI_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'OPENROUTER_API_KEY',
    ],
    files: (env, home) => [{ path: join(opencodeDir('data', env, home), 'auth.json') }],
    hidden: (env, home) => {
      if (env.OPENCODE_CONFIG_CONTENT) return 'OPENCODE_CONFIG_CONTENT may carry a provider key';
      const config = opencodeDir('config', env, home);
      const file = ['opencode.json', 'opencode.jsonc'].map((f) => join(config, f)).find(existsSync);
      return file ? `${file} may carry a provider key` : undefined;
    },
  },
  // Sessions and its log in data, its plugin install (node_modules) in config and cache.
  sandboxHome: (env, home) =>
    (['config', 'data', 'state', 'cache'] as const).map((kind) => opencodeDir(kind, env, home)),
  adapter: (config) => createOpencodeBackend({ model: config.cli.model }),
  // `opencode [project]` starts the TUI; `--prompt` is its "Prompt to use" (opencode.ai/docs/cli).
  // Model names there are provider/model.
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'opencode',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, '--prompt', prompt],
  }),
};
