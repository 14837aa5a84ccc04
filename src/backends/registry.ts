import type { ConfigCheckIssue } from '../config/load-config.ts';
import {
  AGENT_CLI_NAMES,
  type AgentCliName,
  BACKEND_NAMES,
  type BackendName,
  type RalphConfig,
} from '../config/schema.ts';
import { RalphError } from '../errors.ts';
import { findExecutable } from '../process/find-executable.ts';
import { ampBackend } from './amp.ts';
import { configForBackend } from './backend-settings.ts';
import { claudeBackend } from './claude.ts';
import { clineBackend } from './cline.ts';
import { createCodexBackend } from './codex.ts';
import { copilotBackend } from './copilot.ts';
import { cursorBackend } from './cursor.ts';
import { createCustomBackend } from './custom.ts';
import { fakeBackend } from './fake.ts';
import { geminiBackend } from './gemini.ts';
import { createOpencodeBackend } from './opencode.ts';
import { qwenBackend } from './qwen.ts';
import type { Backend } from './types.ts';

/** Agent CLIs whose executable is not named like the backend. */
const EXECUTABLES: Partial<Record<AgentCliName, string>> = { cursor: 'cursor-agent' };

/** The agent CLIs `cli.backend: auto` looks for on PATH, in this order: backend → executable. */
export const AUTO_ORDER: readonly (readonly [AgentCliName, string])[] = AGENT_CLI_NAMES.map(
  (name) => [name, EXECUTABLES[name] ?? name] as const,
);

/**
 * What ran, as a person reads it: the backend, and the executable when it is not the CLI's own
 * name (`custom (./agent.sh)`, `claude (/opt/claude/bin/claude)`). `fake` is Ralph's own agent.
 */
export function describeAgent(backend: string, command: string | undefined): string {
  if (command === undefined || backend === 'fake') return backend;
  const own = AUTO_ORDER.find(([name]) => name === backend)?.[1];
  return command === own ? backend : `${backend} (${command})`;
}

/** The first backend of AUTO_ORDER whose executable is on PATH, or undefined. */
export function pickAutoBackend(env: NodeJS.ProcessEnv, cwd: string): BackendName | undefined {
  return AUTO_ORDER.find(([, command]) => findExecutable(command, env.PATH, cwd).found)?.[0];
}

/**
 * Resolves `cli.backend`, a hat's `backend`, a fallback or a reviewer to an adapter that builds its
 * command from its own settings (see configForBackend): `cli.command`, `cli.args` and `cli.model`
 * only reach the loop's backend. `command`: a hat's own executable, over either.
 */
export function resolveBackend(name: BackendName, config: RalphConfig, command?: string): Backend {
  const own = configForBackend(name, config, command);
  const adapter = adapterFor(name, own);
  if (own === config) return adapter;
  return {
    ...adapter,
    buildInvocation: (ctx) =>
      adapter.buildInvocation({ ...ctx, config: configForBackend(name, ctx.config, command) }),
  };
}

/** The adapter of one backend, configured from `config` as that backend sees it. */
function adapterFor(name: BackendName, config: RalphConfig): Backend {
  switch (name) {
    case 'custom':
      return createCustomBackend(config.cli.output_format);
    case 'fake':
      return fakeBackend;
    case 'claude':
      return claudeBackend;
    case 'codex':
      return createCodexBackend({ model: config.cli.model });
    case 'gemini':
      return geminiBackend;
    case 'opencode':
      return createOpencodeBackend({ model: config.cli.model });
    case 'copilot':
      return copilotBackend;
    case 'cline':
      return clineBackend;
    case 'amp':
      return ampBackend;
    case 'cursor':
      return cursorBackend;
    case 'qwen':
      return qwenBackend;
    case 'auto':
      throw new RalphError(
        'backend_unavailable',
        `cli.backend is auto but none of ${AUTO_ORDER.map(([, c]) => c).join(', ')} is on PATH: install one, or set cli.backend / RALPH_AGENT / -b (available: ${BACKEND_NAMES.filter((b) => b !== 'auto').join(', ')})`,
      );
    default:
      throw new RalphError(
        'backend_unavailable',
        `backend "${name}" is not supported by this version of ralph (available: ${BACKEND_NAMES.filter((b) => b !== 'auto').join(', ')}); ` +
          'to drive that CLI now, use cli.backend: custom with cli.command',
      );
  }
}

/**
 * Keys a backend cannot honour, as config problems: `hats.<hat>.disallowed_tools` on a backend whose
 * CLI has no way to refuse tools, and `custom` with no command of its own (cli.command is the loop
 * backend's) as a hat's, a fallback's or the reviewer's backend. `auto` is judged as the backend it
 * would pick (`autoPick`).
 */
export function backendCapabilityIssues(config: RalphConfig, autoPick?: BackendName): ConfigCheckIssue[] {
  const issues: ConfigCheckIssue[] = [...customWithoutCommand(config, autoPick)];
  for (const [id, hat] of Object.entries(config.hats)) {
    if (hat.disallowed_tools.length === 0) continue;
    let name = hat.backend ?? config.cli.backend;
    if (name === 'auto') name = autoPick ?? 'auto';
    if (name === 'auto') continue; // resolveBackend explains what to install first
    const backend = resolveBackend(name, config);
    if (backend.denyTools) continue;
    const able = BACKEND_NAMES.filter(
      (b) => b !== 'auto' && resolveBackend(b, config).denyTools !== undefined,
    );
    issues.push({
      path: ['hats', id, 'disallowed_tools'],
      message: `backend ${name} cannot refuse tools (its CLI has no such option), so hat "${id}" would run unrestricted; use a backend that can (${able.join(', ')}) for this hat, or remove disallowed_tools`,
    });
  }
  return issues;
}

/** `custom` where it would run with no command: cli.command is the executable of cli.backend only. */
function customWithoutCommand(config: RalphConfig, autoPick?: BackendName): ConfigCheckIssue[] {
  const loop = config.cli.backend === 'auto' ? (autoPick ?? 'auto') : config.cli.backend;
  if (loop === 'custom') return [];
  const why = `cli.command is the executable of cli.backend (${loop}) only`;
  const issues: ConfigCheckIssue[] = [];
  for (const [id, hat] of Object.entries(config.hats))
    if (hat.backend === 'custom' && !hat.command)
      issues.push({
        path: ['hats', id, 'backend'],
        message: `hat "${id}" runs on custom but has no command (${why}); set hats.${id}.command to the agent executable`,
      });
  config.cli.fallback.forEach((name, i) => {
    if (name === 'custom')
      issues.push({
        path: ['cli', 'fallback', i],
        message: `a custom fallback has no command to run (${why}); use an agent CLI as the fallback`,
      });
  });
  if (config.gates.review?.backend === 'custom')
    issues.push({
      path: ['gates', 'review', 'backend'],
      message: `a custom reviewer has no command to run (${why}); review with an agent CLI`,
    });
  return issues;
}
