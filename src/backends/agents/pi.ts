import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type AgentCliDefinition, dirOr } from '../definition.ts';
import { classifyPiExit } from '../parsers/pi-errors.ts';
import { createPiParser } from '../parsers/pi-stream.ts';
import type { Backend } from '../types.ts';

/**
 * pi (`pi -p --mode json --no-session`), headless. Checked against `pi --help` and the source of
 * @mariozechner/pi-coding-agent 0.73.1: `-p` runs the prompt and exits; `--mode json` prints every
 * session event as a JSON line; `--no-session` keeps no session file (each iteration is a fresh
 * context, as ralph-orchestrator runs it). pi asks no permission for any tool, so there is nothing
 * to approve. The prompt goes on stdin, which pi reads when it is not a terminal (no argument limit).
 */
export function createPiBackend(): Backend {
  return {
    name: 'pi',
    buildInvocation({ prompt, config, extraArgs }) {
      const user = [...config.cli.args, ...extraArgs];
      const args = ['-p', '--mode', 'json', '--no-session'];
      // provider/id or a pattern; pi takes the last `--model`, so one in cli.args wins.
      if (config.cli.model) args.push('--model', config.cli.model);
      args.push(...user);
      return { command: config.cli.command ?? 'pi', args, stdin: prompt, env: {} };
    },
    createParser: createPiParser,
    classifyExit: classifyPiExit,
  };
}

/** $PI_CODING_AGENT_DIR, else ~/.pi/agent: its settings, models.json, auth.json, sessions and tools it fetches. */
const piAgentDir = (env: NodeJS.ProcessEnv, home: string): string => {
  const dir = env.PI_CODING_AGENT_DIR;
  if (dir === '~') return home;
  if (dir?.startsWith('~/')) return join(home, dir.slice(2));
  return resolve(dirOr(dir, join(home, '.pi', 'agent')));
};

/** The provider key variables pi reads (`pi --help`, "Environment Variables"). */
const PI_KEY_VARS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'DEEPSEEK_API_KEY',
  'GROQ_API_KEY',
  'CEREBRAS_API_KEY',
  'XAI_API_KEY',
  'FIREWORKS_API_KEY',
  'OPENROUTER_API_KEY',
  'AI_GATEWAY_API_KEY',
  'ZAI_API_KEY',
  'MISTRAL_API_KEY',
  'MINIMAX_API_KEY',
  'MOONSHOT_API_KEY',
  'OPENCODE_API_KEY',
  'KIMI_API_KEY',
  'CLOUDFLARE_API_KEY',
  'XIAOMI_API_KEY',
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_ACCESS_KEY_ID',
  'AWS_PROFILE',
] as const;

/** pi, by Mario Zechner: its adapter, how it is installed and logged in to, and how `ralph plan` opens it. */
export const pi: AgentCliDefinition = {
  name: 'pi',
  modelFlag: '--model',
  executable: 'pi',
  install: 'npm install -g @mariozechner/pi-coding-agent',
  // `/login` stores keys and OAuth tokens in <agent dir>/auth.json, which pi creates empty (`{}`)
  // on its first start; or a provider's variable (docs/providers.md of the package).
  auth: {
    login: 'run `pi` and `/login`, or set a provider key such as ANTHROPIC_API_KEY',
    env: PI_KEY_VARS,
    files: (env, home) => [{ path: join(piAgentDir(env, home), 'auth.json'), holds: (t) => /"\s*:/.test(t) }],
    hidden: (env, home) => {
      const models = join(piAgentDir(env, home), 'models.json');
      return existsSync(models) ? `${models} may carry a provider key` : undefined;
    },
  },
  // Everything pi writes in the home is in its agent dir (auth.json, settings, the fd/rg it fetches);
  // sessions too, unless $PI_CODING_AGENT_SESSION_DIR moves them.
  sandboxHome: (env, home) => [
    piAgentDir(env, home),
    ...(env.PI_CODING_AGENT_SESSION_DIR ? [resolve(env.PI_CODING_AGENT_SESSION_DIR)] : []),
  ],
  adapter: () => createPiBackend(),
  // `pi [messages...]` starts the TUI with the prompt as its first message (`pi --help`).
  interactive: (config, prompt, { extraArgs = [] }) => ({
    command: 'pi',
    args: [...(config.cli.model ? ['--model', config.cli.model] : []), ...extraArgs, prompt],
  }),
};
