import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RalphError } from '../errors.ts';
import { worktreePath } from '../state/parallel-files.ts';
import { ralphPaths } from '../state/paths.ts';
import { workspaceLockHolder } from '../state/workspace-lock.ts';
import { refuseOwnAgent } from './agent-caller.ts';
import {
  type ControlSource,
  type InboxCommand,
  type InboxKind,
  type QuestionRecord,
  sendCommand,
} from './control-files.ts';
import { answerQuestion, type Settled, settleApproval } from './settle-question.ts';

// The control tier of the library (DESIGN.md §5 "One control channel"): every command to a loop is
// a line appended to its `.ralph/control/inbox.jsonl`, so `ralph tell|stop|…`, the TUI, the
// dashboard and embedding programs steer a loop the same way.

/** Guidance longer than this is a file's job (PROMPT.md, the scratchpad), not a message's. */
const MAX_GUIDANCE_CHARS = 20_000;

/** Where a control command goes: a workspace's loop, or the loop in one of its worktrees. */
export interface ControlTarget {
  /** The workspace the loop runs in; with `worktree`, the repository's top directory. */
  workspace: string;
  /** A worktree of `ralph run --worktree NAME` (`.ralph/worktrees/NAME`): steers the loop running there. */
  worktree?: string | undefined;
  /** Who sends it, recorded in the inbox and on an answer (default `cli`). */
  source?: ControlSource | undefined;
  /**
   * The sender's environment (default `process.env`): one that carries a loop's agent marks may
   * not approve, reject, answer or resume (`human_only`) when they are the target loop's own agent's.
   */
  env?: NodeJS.ProcessEnv | undefined;
}

/** What a control function wrote: the inbox command, where, and the loop that will read it. */
export interface ControlReceipt {
  /** The line appended to `control/inbox.jsonl`; the loop consumes its id once. */
  command: InboxCommand;
  /** The workspace written to (a selected worktree's own). */
  workspace: string;
  /** The pid of the loop running there, or undefined when none runs (it reads the inbox when it starts). */
  loopPid: number | undefined;
}

/** What {@link answer}, {@link approve} and {@link reject} wrote: also the settled question or approval. */
export interface AnswerReceipt extends ControlReceipt {
  /** The question or approval as answered (its line in `control/questions.jsonl`). */
  question: QuestionRecord;
}

/**
 * The directory of the loop a target names: the workspace, or the selected worktree's checkout
 * (`.ralph/worktrees/NAME` under the repository), which must exist (`no_worktree` otherwise).
 */
export function controlledWorkspace(target: string | ControlTarget): string {
  if (typeof target === 'string') return target;
  if (target.worktree === undefined) return target.workspace;
  const path = worktreePath(target.workspace, target.worktree);
  if (!existsSync(path))
    throw new RalphError(
      'no_worktree',
      `no worktree ${JSON.stringify(target.worktree)} (ralph worktrees list shows them)`,
    );
  return path;
}

function targetWorkspace(target: string | ControlTarget): { workspace: string; source: ControlSource } {
  const source = typeof target === 'string' ? undefined : target.source;
  return { workspace: controlledWorkspace(target), source: source ?? 'cli' };
}

/** The pid of the loop holding the workspace's lock, if it is alive. */
function loopPid(workspace: string): number | undefined {
  return workspaceLockHolder(ralphPaths(workspace))?.pid;
}

/** The sender's environment (the target's, else this process's). */
function senderEnv(target: string | ControlTarget): NodeJS.ProcessEnv {
  return (typeof target === 'string' ? undefined : target.env) ?? process.env;
}

/** A command only a running loop can act on (stop, pause, resume): an error when none runs. */
function toRunningLoop(target: string | ControlTarget, kind: InboxKind): ControlReceipt {
  const { workspace, source } = targetWorkspace(target);
  const pid = loopPid(workspace);
  if (pid === undefined)
    throw new RalphError(
      'not_running',
      `no Ralph loop is running in ${workspace} (to continue a stopped run: \`ralph run --resume\`)`,
    );
  return { command: sendCommand(workspace, kind, source), workspace, loopPid: pid };
}

/**
 * Guidance for the loop's next iteration (`ralph tell`): its prompt carries the text once. With no
 * loop running, the next `ralph run` carries it in its first prompt. Throws `usage` for empty or
 * over-long text (over {@link MAX_GUIDANCE_CHARS}), `not_running` where no Ralph project is (no
 * ralph.yml, no `.ralph/`).
 */
export function tell(target: string | ControlTarget, text: string): ControlReceipt {
  const { workspace, source } = targetWorkspace(target);
  const trimmed = text.trim();
  if (trimmed === '') throw new RalphError('usage', 'the guidance is empty: say what the agent should do');
  if (trimmed.length > MAX_GUIDANCE_CHARS)
    throw new RalphError(
      'usage',
      `the guidance is ${trimmed.length} characters (at most ${MAX_GUIDANCE_CHARS}): put long instructions in a file and tell the agent to read it`,
    );
  // Guidance is kept for a later run, so only where one can start: not in a stray directory.
  const project = typeof target === 'string' ? target : target.workspace;
  if (!existsSync(ralphPaths(project).dir) && !existsSync(join(project, 'ralph.yml')))
    throw new RalphError(
      'not_running',
      `no Ralph project in ${project} (no ralph.yml, no .ralph/): run \`ralph tell\` in the project's directory`,
    );
  const command = sendCommand(workspace, 'guidance', source, { text: trimmed });
  return { command, workspace, loopPid: loopPid(workspace) };
}

/**
 * Asks the running loop to stop (`ralph stop`): after the current iteration, or with `now` at once
 * (its agent is killed, state saved; `ralph run --resume` goes on). Throws `not_running` when no
 * loop runs there.
 */
export function stop(
  target: string | ControlTarget,
  options: { now?: boolean | undefined } = {},
): ControlReceipt {
  return toRunningLoop(target, options.now ? 'stop_now' : 'stop');
}

/** Pauses the running loop before its next iteration (`ralph pause`); throws `not_running` when none runs. */
export function pause(target: string | ControlTarget): ControlReceipt {
  return toRunningLoop(target, 'pause');
}

/**
 * Lets a paused loop go on (`ralph resume`); throws `not_running` when no loop runs there, and
 * `human_only` from the loop's own agent's environment (a person paused it).
 */
export function resume(target: string | ControlTarget): ControlReceipt {
  refuseOwnAgent(senderEnv(target), controlledWorkspace(target), '`ralph resume`');
  return toRunningLoop(target, 'resume');
}

/** Settles a question or approval of the target's loop, with the receipt of what was written. */
function settle(
  target: string | ControlTarget,
  what: string,
  write: (workspace: string, source: ControlSource) => Settled,
): AnswerReceipt {
  refuseOwnAgent(senderEnv(target), controlledWorkspace(target), what);
  const { workspace, source } = targetWorkspace(target);
  return { ...write(workspace, source), workspace, loopPid: loopPid(workspace) };
}

/**
 * Answers a question an agent asked (`ralph answer [ID] TEXT`): `id` (or a unique prefix) names it,
 * or leave it out when one question is open. An answer to a question with options must be one of
 * them (case ignored). Throws `no_question` when none (or not that one) is open, `human_only` from
 * the loop's own agent's environment, `usage` otherwise.
 */
export function answer(
  target: string | ControlTarget,
  text: string,
  options: { id?: string | undefined } = {},
): AnswerReceipt {
  return settle(target, '`ralph answer`', (workspace, source) =>
    answerQuestion(workspace, options.id, text, source),
  );
}

/**
 * Approves what the loop waits for at a review point (`ralph approve [ID]`, `gates.approval`); `id`
 * (or a unique prefix) names it, or leave it out when one is open. Throws `no_question` when none
 * (or not that one) waits, `human_only` from the loop's own agent's environment.
 */
export function approve(
  target: string | ControlTarget,
  options: { id?: string | undefined } = {},
): AnswerReceipt {
  return settle(target, '`ralph approve`', (workspace, source) =>
    settleApproval(workspace, options.id, { approve: true }, source),
  );
}

/**
 * Rejects at a review point (`ralph reject [ID] REASON`): the reason is the next iteration's
 * feedback. Throws `usage` for an empty reason, `no_question` when no approval (or not that one)
 * waits, `human_only` from the loop's own agent's environment.
 */
export function reject(
  target: string | ControlTarget,
  reason: string,
  options: { id?: string | undefined } = {},
): AnswerReceipt {
  return settle(target, '`ralph reject`', (workspace, source) =>
    settleApproval(workspace, options.id, { approve: false, reason }, source),
  );
}
