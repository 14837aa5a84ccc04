import { delimiter } from 'node:path';
import { nestingGuards } from '../backends/registry.ts';
import { MARK_VAR, markFor } from '../process/marked-processes.ts';

/**
 * Removed from every agent's environment: variables that make agent CLIs refuse to start inside
 * another agent session (each backend's definition names its own), Ralph's own fault injection
 * (`RALPH_FAULT_*`, state/io/write-faults.ts) and debug trace (`RALPH_DEBUG`): meant for this
 * Ralph, not the `ralph` tool calls of its agent, whose output the model would read; and empty
 * directory variables (below).
 */
const NESTING_GUARDS = new Set(nestingGuards());
// An empty directory variable (`CLAUDE_CONFIG_DIR=`, `CODEX_HOME=`, `XDG_CONFIG_HOME=`) is unset to
// Ralph (the backends' dirOr) but the current directory to an agent CLI, which then writes its
// config, sessions and logs into the workspace, where a commit picks them up: removed, so both agree.
const emptyDirectory = (name: string, value: string | undefined) => value === '' && /_(HOME|DIR)$/.test(name);
const removed = (name: string, value: string | undefined) =>
  name.startsWith('RALPH_FAULT_') ||
  name === 'RALPH_DEBUG' ||
  NESTING_GUARDS.has(name) ||
  emptyDirectory(name, value);

/** What every agent process gets, in a run or not (`ralph plan`). */
export interface BaseAgentEnvInput {
  /** The caller's environment as {@link agentEnvBase} returned it. */
  base: NodeJS.ProcessEnv;
  ralphBin: string;
  ralphBinDir: string;
  workspace: string;
  /** `cli.env`, then the backend's own additions (later wins). */
  extra: Record<string, string>[];
}

/** A loop's agent: the base, plus the run's and the iteration's variables. */
export interface AgentEnvInput extends BaseAgentEnvInput {
  eventsFile: string;
  iteration: number;
  hat: string | null;
  runId: string;
  /**
   * `human.timeout_seconds` and `human.default_answer`, for `ralph ask`; the human channel
   * (`telegram` with `RObot` on, else `none`), for what `ralph tools interact progress` says.
   */
  human: { timeoutSeconds: number; defaultAnswer: string; channel: 'telegram' | 'none' };
}

/**
 * The caller's environment without the variables no agent gets: a plain copy, made once per run
 * (copying `process.env` reads every variable through the C environment, ~0.1 ms, where a plain
 * object's copy for each iteration costs a few µs).
 */
export function agentEnvBase(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...env };
  for (const name of Object.keys(base)) if (removed(name, base[name])) delete base[name];
  return base;
}

/**
 * The environment of every agent process without a run (DESIGN.md §1): the base (nesting guards
 * and Ralph's fault injection removed: agentEnvBase), then `cli.env` and the backend's variables,
 * `RALPH_BIN`, `RALPH_WORKSPACE_ROOT`, and Ralph's bin first on PATH.
 */
export function buildBaseAgentEnv(input: BaseAgentEnvInput): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...input.base };
  for (const extra of input.extra) Object.assign(env, extra);
  env.RALPH_BIN = input.ralphBin;
  env.RALPH_WORKSPACE_ROOT = input.workspace;
  const rest = (env.PATH ?? '').split(delimiter).filter((p) => p && p !== input.ralphBinDir);
  env.PATH = [input.ralphBinDir, ...rest].join(delimiter);
  return env;
}

/** The environment of a loop's agent process (DESIGN.md §1): the base, and the run's variables. */
export function buildAgentEnv(input: AgentEnvInput): NodeJS.ProcessEnv {
  const env = buildBaseAgentEnv(input);
  env.RALPH_EVENTS_FILE = input.eventsFile;
  env.RALPH_ITERATION = String(input.iteration);
  env.RALPH_HAT = input.hat ?? '';
  env.RALPH_RUN_ID = input.runId;
  env.RALPH_HUMAN_TIMEOUT_SECONDS = String(input.human.timeoutSeconds);
  env.RALPH_HUMAN_DEFAULT_ANSWER = input.human.defaultAnswer;
  env.RALPH_HUMAN_CHANNEL = input.human.channel;
  // Found in /proc at the iteration's end, however far a process detached (setsid, daemons).
  env[MARK_VAR] = markFor(input.runId, input.iteration);
  return env;
}
