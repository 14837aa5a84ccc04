import { realpathSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { RalphError } from '../errors.ts';
import { MARK_VAR } from '../process/marked-processes.ts';
import { readLoopState } from '../state/loop-state.ts';
import { ralphPaths } from '../state/paths.ts';

/**
 * Variables every process of a loop's agent gets (agent-env.ts) and passes on to what it starts
 * (its shells, git hooks, gate commands, daemons): a person's terminal has none of them.
 */
const AGENT_MARKS = [MARK_VAR, 'RALPH_RUN_ID', 'RALPH_EVENTS_FILE'] as const;

/** The first agent mark `env` carries, or undefined for a person's (or a program's) environment. */
export function agentMarkIn(env: NodeJS.ProcessEnv): string | undefined {
  return AGENT_MARKS.find((name) => (env[name] ?? '') !== '');
}

/**
 * The agent mark that makes `env` an agent of the loop in `workspace` (or something it started):
 * its workspace root, its run (the run id, or the run of its iteration mark) or its events file is
 * that loop's. An agent of another loop (a loop supervising loops) is not refused.
 */
export function ownAgentMark(env: NodeJS.ProcessEnv, workspace: string): string | undefined {
  const mark = agentMarkIn(env);
  if (mark === undefined) return undefined;
  const paths = ralphPaths(workspace);
  if (env.RALPH_WORKSPACE_ROOT && real(env.RALPH_WORKSPACE_ROOT) === real(workspace)) return mark;
  const events = env.RALPH_EVENTS_FILE;
  if (events && `${real(dirname(resolve(events)))}${sep}`.startsWith(`${real(paths.dir)}${sep}`)) return mark;
  const runs = [env.RALPH_RUN_ID, env[MARK_VAR]?.replace(/:\d+$/, '')].filter((r) => r);
  if (runs.length === 0) return undefined;
  let runId: string | undefined;
  try {
    runId = readLoopState(paths.state)?.run_id;
  } catch {
    // A damaged state names no run; the workspace and events checks above stand.
  }
  return runId !== undefined && runs.includes(runId) ? mark : undefined;
}

/** The real path of `path` (as given when it does not exist). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Refuses `what` (approve, reject, answer, resume) to a process that carries the environment of the
 * loop's own agent: an agent may ask, never settle its own question or approval.
 */
export function refuseOwnAgent(env: NodeJS.ProcessEnv, workspace: string, what: string): void {
  const mark = ownAgentMark(env, workspace);
  if (mark !== undefined)
    throw humanOnly(what, env, mark, "an agent cannot settle its own loop's approvals or questions");
}

/** Refuses `what` to any loop agent's environment (what would serve every loop's approvals). */
export function refuseAnyAgent(env: NodeJS.ProcessEnv, what: string): void {
  const mark = agentMarkIn(env);
  if (mark !== undefined)
    throw humanOnly(what, env, mark, 'an agent cannot serve itself the approvals of a loop');
}

function humanOnly(what: string, env: NodeJS.ProcessEnv, mark: string, why: string): RalphError {
  return new RalphError(
    'human_only',
    `${what} is for a person: this process carries a Ralph agent's environment (${mark}=${env[mark]}), and ${why} — run it from your own terminal`,
  );
}
