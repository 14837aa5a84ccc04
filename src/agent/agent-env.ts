import { delimiter } from 'node:path';
import { nestingGuards } from '../backends/registry.ts';
import { MARK_VAR, markFor } from '../process/marked-processes.ts';

/**
 * Removed from every agent's environment: variables that make agent CLIs refuse to start inside
 * another agent session (each backend's definition names its own), and Ralph's own fault injection
 * (meant for this Ralph, not a nested one).
 */
const REMOVED = [
  ...nestingGuards(),
  'RALPH_FAULT_KILL_BEFORE_WRITE',
  'RALPH_FAULT_KILL_AFTER_WRITE',
  'RALPH_FAULT_SIGNAL_AFTER_WRITE',
  'RALPH_FAULT_SIGNAL_BEFORE_WRITE',
  'RALPH_FAULT_ERRNO_AT_WRITE',
  'RALPH_FAULT_ERRNO_AT_OUTPUT_WRITE',
  'RALPH_FAULT_TRACE_WRITES',
];

export interface AgentEnvInput {
  /** The caller's environment as {@link agentEnvBase} returned it. */
  base: NodeJS.ProcessEnv;
  eventsFile: string;
  ralphBin: string;
  ralphBinDir: string;
  workspace: string;
  iteration: number;
  hat: string | null;
  runId: string;
  /** `human.timeout_seconds` and `human.default_answer`, for `ralph ask`. */
  human: { timeoutSeconds: number; defaultAnswer: string };
  /** `cli.env`, then the backend's own additions (later wins). */
  extra: Record<string, string>[];
}

/**
 * The caller's environment without the variables no agent gets: a plain copy, made once per run
 * (copying `process.env` reads every variable through the C environment, ~0.1 ms, where a plain
 * object's copy for each iteration costs a few µs).
 */
export function agentEnvBase(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...env };
  for (const name of REMOVED) delete base[name];
  return base;
}

/** The environment of every agent process (DESIGN.md §1): Ralph's variables, Ralph's bin first on PATH. */
export function buildAgentEnv(input: AgentEnvInput): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...input.base };
  for (const extra of input.extra) Object.assign(env, extra);
  env.RALPH_EVENTS_FILE = input.eventsFile;
  env.RALPH_BIN = input.ralphBin;
  env.RALPH_WORKSPACE_ROOT = input.workspace;
  env.RALPH_ITERATION = String(input.iteration);
  env.RALPH_HAT = input.hat ?? '';
  env.RALPH_RUN_ID = input.runId;
  env.RALPH_HUMAN_TIMEOUT_SECONDS = String(input.human.timeoutSeconds);
  env.RALPH_HUMAN_DEFAULT_ANSWER = input.human.defaultAnswer;
  // Found in /proc at the iteration's end, however far a process detached (setsid, daemons).
  env[MARK_VAR] = markFor(input.runId, input.iteration);
  const rest = (env.PATH ?? '').split(delimiter).filter((p) => p && p !== input.ralphBinDir);
  env.PATH = [input.ralphBinDir, ...rest].join(delimiter);
  return env;
}
