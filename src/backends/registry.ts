import type { ConfigCheckIssue } from '../config/load-config.ts';
import {
  AGENT_CLI_NAMES,
  type AgentCliName,
  BACKEND_NAMES,
  type BackendName,
  INTERACTIVE_BACKEND_NAMES,
} from '../config/schema/backend-names.ts';
import type { RalphConfig } from '../config/schema.ts';
import { RalphError } from '../errors.ts';
import { findExecutable } from '../process/find-executable.ts';
import { amp } from './agents/amp.ts';
import { claude } from './agents/claude.ts';
import { cline } from './agents/cline.ts';
import { codex } from './agents/codex.ts';
import { copilot } from './agents/copilot.ts';
import { cursor } from './agents/cursor.ts';
import { custom } from './agents/custom.ts';
import { fake } from './agents/fake.ts';
import { gemini } from './agents/gemini.ts';
import { opencode } from './agents/opencode.ts';
import { pi } from './agents/pi.ts';
import { qwen } from './agents/qwen.ts';
import { configForBackend } from './backend-settings.ts';
import {
  type AgentCliDefinition,
  type BackendDefinition,
  type DefinedBackendName,
  type InteractiveInvocation,
  type InteractiveOptions,
  isAgentCli,
} from './definition.ts';
import { modelKeyIssues } from './model-checks.ts';
import type { Backend } from './types.ts';

/** Every backend Ralph can run, one definition each (src/backends/agents/): the one list to add to. */
export const BACKEND_DEFINITIONS: readonly BackendDefinition[] = [
  claude,
  codex,
  gemini,
  opencode,
  qwen,
  copilot,
  cline,
  cursor,
  pi,
  amp,
  custom,
  fake,
];

const AVAILABLE = BACKEND_NAMES.filter((b) => b !== 'auto').join(', ');

/** The definition of a backend, or an error naming the ones there are. */
export function definitionOf(name: string): BackendDefinition {
  const found = BACKEND_DEFINITIONS.find((d) => d.name === name);
  if (found) return found;
  if (name === 'auto')
    throw new RalphError(
      'backend_unavailable',
      `cli.backend is auto but none of ${AUTO_ORDER.map(([, c]) => c).join(', ')} is on PATH: install one, or set cli.backend / RALPH_AGENT / -b (available: ${AVAILABLE})`,
    );
  throw new RalphError(
    'backend_unavailable',
    `backend "${name}" is not supported by this version of ralph (available: ${AVAILABLE}); ` +
      'to drive that CLI now, use cli.backend: custom with cli.command',
  );
}

/** The agent CLIs Ralph knows (not custom or fake), in the order of AGENT_CLI_NAMES. */
export function knownBackends(): readonly AgentCliDefinition[] {
  return AGENT_CLI_NAMES.flatMap((name) =>
    BACKEND_DEFINITIONS.filter(isAgentCli).filter((d) => d.name === name),
  );
}

/** The agent CLIs `cli.backend: auto` looks for on PATH, in this order: backend → executable. */
export const AUTO_ORDER: readonly (readonly [AgentCliName, string])[] = knownBackends().map(
  (d) => [d.name, d.executable] as const,
);

/**
 * What ran, as a person reads it: the backend, and the executable when it is not the CLI's own
 * name (`custom (./agent.sh)`, `claude (/opt/claude/bin/claude)`). `fake` is Ralph's own agent.
 */
export function describeAgent(backend: string, command: string | undefined): string {
  if (command === undefined || backend === fake.name) return backend;
  const own = AUTO_ORDER.find(([name]) => name === backend)?.[1];
  return command === own ? backend : `${backend} (${command})`;
}

/** The first backend of AUTO_ORDER whose executable is on PATH, or undefined. */
export function pickAutoBackend(env: NodeJS.ProcessEnv, cwd: string): BackendName | undefined {
  return AUTO_ORDER.find(([, command]) => findExecutable(command, env.PATH, cwd).found)?.[0];
}

/** How to install the agent CLI `command` runs (a bare name or a path), or a generic hint. */
export function installHint(command: string): string {
  const name = command.slice(command.lastIndexOf('/') + 1);
  return knownBackends().find((d) => d.executable === name)?.install ?? 'make sure it is on PATH';
}

/** Variables removed from every agent's environment: any backend's nesting guards. */
export function nestingGuards(): string[] {
  return BACKEND_DEFINITIONS.flatMap((d) => d.nestingGuards ?? []);
}

/** What Ralph does differently on this host, per backend (e.g. Claude Code as root), for the doctor. */
export function hostNotes(): string[] {
  return BACKEND_DEFINITIONS.flatMap((d) => d.hostNotes?.() ?? []);
}

/**
 * Resolves `cli.backend`, a hat's `backend`, a fallback or a reviewer to an adapter that builds its
 * command from its own settings (see configForBackend): `cli.command`, `cli.args` and `cli.model`
 * only reach the loop's backend. `command`: a hat's own executable, over either; `model`: the rung
 * of a model ladder this iteration runs on, over `cli.model` of either. Returns the
 * {@link Backend} for `runLoop`; throws `backend_unavailable` for `auto` (resolve it first:
 * `resolveRun` does) or an unknown name.
 */
export function resolveBackend(
  name: BackendName,
  config: RalphConfig,
  command?: string,
  model?: string,
): Backend {
  const own = configForBackend(name, config, command, model);
  const adapter = definitionOf(name).adapter(own);
  if (own === config) return adapter;
  return {
    ...adapter,
    buildInvocation: (ctx) =>
      adapter.buildInvocation({ ...ctx, config: configForBackend(name, ctx.config, command, model) }),
  };
}

/** The backends `ralph plan` can open interactively: the definitions with `interactive`. */
export const INTERACTIVE_BACKENDS: readonly DefinedBackendName[] = INTERACTIVE_BACKEND_NAMES;

/**
 * Builds the command that opens `backendName` interactively with `prompt` as its first message (for
 * `ralph plan`), as its definition says. `auto` still unresolved (resolveRunConfig found no agent
 * CLI on PATH) is an error that says what to install or set.
 */
export function interactiveInvocation(
  backendName: BackendName,
  config: RalphConfig,
  prompt: string,
  opts: InteractiveOptions = {},
): InteractiveInvocation {
  if (backendName === 'auto')
    throw new RalphError(
      'backend_unavailable',
      `no backend selected: cli.backend is auto but none of ${AUTO_ORDER.map(([, c]) => c).join(', ')} is on PATH; install one, or set cli.backend / RALPH_AGENT / -b (interactive: ${INTERACTIVE_BACKENDS.join(', ')})`,
    );
  const open = BACKEND_DEFINITIONS.find((d) => d.name === backendName)?.interactive;
  if (!open)
    throw new RalphError(
      'backend_unavailable',
      `no interactive mode known for backend "${backendName}" (available: ${INTERACTIVE_BACKENDS.join(', ')}); ` +
        'to open that CLI anyway, pass -b custom --set cli.command=<executable> (plus cli.prompt_flag if it takes one)',
    );
  return open(config, prompt, opts);
}

/**
 * Keys a backend cannot honour, as config problems: `hats.<hat>.disallowed_tools` on a backend whose
 * CLI has no way to refuse tools, and `custom` with no command of its own (cli.command is the loop
 * backend's) as a hat's, a fallback's or the reviewer's backend, and a model or model ladder a
 * backend cannot take (modelKeyIssues). `auto` is judged as the backend it would pick (`autoPick`).
 */
export function backendCapabilityIssues(config: RalphConfig, autoPick?: BackendName): ConfigCheckIssue[] {
  const issues: ConfigCheckIssue[] = [
    ...customWithoutCommand(config, autoPick),
    ...modelKeyIssues(config, BACKEND_DEFINITIONS, autoPick),
  ];
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

/** A backend with no executable of its own (`custom`): it runs only the command it is given. */
const needsCommand = (name: string | undefined): boolean =>
  BACKEND_DEFINITIONS.some((d) => d.name === name && d.needsCommand === true);

/** `custom` where it would run with no command: cli.command is the executable of cli.backend only. */
function customWithoutCommand(config: RalphConfig, autoPick?: BackendName): ConfigCheckIssue[] {
  const loop = config.cli.backend === 'auto' ? (autoPick ?? 'auto') : config.cli.backend;
  if (needsCommand(loop)) return [];
  const why = `cli.command is the executable of cli.backend (${loop}) only`;
  const issues: ConfigCheckIssue[] = [];
  for (const [id, hat] of Object.entries(config.hats))
    if (needsCommand(hat.backend) && !hat.command)
      issues.push({
        path: ['hats', id, 'backend'],
        message: `hat "${id}" runs on ${hat.backend} but has no command (${why}); set hats.${id}.command to the agent executable`,
      });
  config.cli.fallback.forEach((name, i) => {
    if (needsCommand(name))
      issues.push({
        path: ['cli', 'fallback', i],
        message: `a ${name} fallback has no command to run (${why}); use an agent CLI as the fallback`,
      });
  });
  const reviewer = config.gates.review?.backend;
  if (needsCommand(reviewer))
    issues.push({
      path: ['gates', 'review', 'backend'],
      message: `a ${reviewer} reviewer has no command to run (${why}); review with an agent CLI`,
    });
  return issues;
}
