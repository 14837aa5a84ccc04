import { humanTimeoutSeconds } from '../../config/human-checks.ts';
import type { ApprovalPointName } from '../../config/schema.ts';
import { type AskInput, type AskOutcome, ask, askAgain } from '../../human/ask.ts';
import { type QuestionRecord, readInbox, readQuestions } from '../../human/control-files.ts';
import { setStatus } from '../../state/loop-state/run-status.ts';
import type { LoopState } from '../../state/loop-state.ts';
import { sweepLeftovers } from '../context/agent-turns.ts';
import { type RunContext, runtimeLeftMs } from '../context/run-context.ts';
import { interruptedStop, type Stop, stop } from '../decide/limits.ts';
import { consumeControl, controlPending } from './control-inbox.ts';

export interface HumanRequest {
  kind: 'question' | 'approval';
  text: string;
  options?: string[] | undefined;
  point?: ApprovalPointName | undefined;
  /**
   * A stop or Ctrl-C keeps the question open and holds it in `state.held_question`, for `--resume`
   * to wait for again; without it the question is withdrawn.
   */
  hold?: boolean | undefined;
}

/**
 * Waits between iterations (or at a review point) for a human: the status is `waiting_for_human`,
 * the question is in `control/questions.jsonl` for `ralph answer`/`approve`/`reject`, the TUI and
 * the dashboard, and a notification fires. `ralph stop` and Ctrl-C end the wait (`abandoned`);
 * `human.timeout_seconds` settles it as `timeout`. A held question of the same kind and point is
 * waited for again under its own id (the run was stopped while it waited).
 */
export async function askHuman(ctx: RunContext, request: HumanRequest): Promise<AskOutcome> {
  const { state, config } = ctx;
  const held = heldRecord(ctx, request);
  const iteration = held?.iteration ?? state.current?.number ?? state.iterations;
  // A guard before the question exists: no process the agent (or a gate) started is alive to answer it.
  await sweepLeftovers(ctx, `iteration ${iteration}`);
  const timeoutMs = humanTimeoutSeconds(config) * 1000;
  const runtimeLeft = runtimeLeftMs(ctx);
  const input: AskInput = {
    questionsFile: ctx.paths.questions,
    kind: request.kind,
    text: request.text,
    options: request.options,
    point: request.point,
    runId: state.run_id,
    iteration,
    // Never past the runtime limit: an unanswered question then times out like any other.
    timeoutMs: Number.isFinite(runtimeLeft)
      ? Math.max(1, timeoutMs > 0 ? Math.min(timeoutMs, runtimeLeft) : runtimeLeft)
      : timeoutMs,
    defaultAnswer: config.human.default_answer,
    trusts: (record) => settledByPerson(ctx, record),
    signal: ctx.options.signal,
    keepOpen: request.hold,
    now: ctx.now,
    giveUp: () => {
      if (controlPending(ctx)) consumeControl(ctx);
      return state.stop_requested === true;
    },
    onAsked: (q) => {
      setWaitingFor(state, { id: q.id, kind: q.kind, text: q.text, expires_at: q.expires_at ?? null });
      ctx.persist();
      announceQuestion(ctx, iteration, q);
    },
  };
  const outcome = await (held ? askAgain(input, held) : ask(input));
  setWaitingFor(state, null);
  // Held (what follows it is added by the caller), or settled.
  if (outcome.kind === 'abandoned' && request.hold)
    state.held_question = {
      id: outcome.record.id,
      point: request.point ?? null,
      iteration,
      completes: null,
      commit: null,
    };
  else if (held) state.held_question = null;
  ctx.persist();
  if (outcome.kind !== 'abandoned') {
    announceAnswer(ctx, iteration, outcome.record);
    ctx.emit({ type: 'loop.resumed', iteration, from: 'waiting_for_human' });
  }
  return outcome;
}

/**
 * True when the control inbox holds the command that settled `record` (`ralph answer`/`approve`/
 * `reject`, the TUI, the dashboard, Telegram all write one): the agent may append to the questions
 * file (`ralph ask`, and inside `sandbox: on`), but not to the inbox, so an answer it forged there
 * settles nothing.
 */
function settledByPerson(ctx: RunContext, record: QuestionRecord): boolean {
  const kinds = record.kind === 'approval' ? ['approve', 'reject'] : ['answer'];
  return readInbox(ctx.paths.inbox, 0).commands.some((c) => c.ref === record.id && kinds.includes(c.kind));
}

/** The held question this request returns to, as the questions file has it now (undefined: ask anew). */
function heldRecord(ctx: RunContext, request: HumanRequest): QuestionRecord | undefined {
  const held = ctx.state.held_question;
  if (!held || (held.point ?? undefined) !== request.point) return undefined;
  const record = readQuestions(ctx.paths.questions).get(held.id);
  if (record && record.kind !== request.kind) return undefined;
  if (record && record.by !== 'withdrawn') return record;
  // Withdrawn or gone (the file was cleared): nothing to return to, it is asked anew.
  ctx.state.held_question = null;
  return undefined;
}

/**
 * The stop after a wait for a human was given up: Ctrl-C (or SIGTERM, SIGHUP) is `interrupted`,
 * `ralph stop` is `cancelled`. The message names the held question, asked again on `--resume`.
 */
export function abandonedWaitStop(ctx: RunContext): Stop {
  const end = ctx.options.signal?.aborted || !ctx.state.stop_requested ? interruptedStop() : undefined;
  ctx.state.stop_requested = false;
  const held = ctx.state.held_question;
  const base = end ?? stop('cancelled', 'stopped by `ralph stop`');
  if (!held) return base;
  const settle = held.point
    ? `\`ralph approve ${held.id}\` / \`ralph reject ${held.id} "why"\``
    : `\`ralph answer ${held.id} "…"\``;
  const what = held.point ? `approval ${held.id} (${held.point})` : `question ${held.id}`;
  return {
    ...base,
    message: `${base.message.split(';')[0]} while ${what} waited; it stays open: \`ralph run --resume\` asks it again (or settle it now with ${settle})`,
  };
}

/** A question or approval waits for a human: the event every output shows it by. */
export function announceQuestion(ctx: RunContext, iteration: number, q: QuestionRecord): void {
  ctx.emit({
    type: 'human.question',
    iteration,
    id: q.id,
    kind: q.kind,
    text: q.text,
    options: q.options,
    point: q.point,
    expiresAt: q.expires_at ?? null,
  });
}

/** A question or approval was settled (by a human, or by its timeout). */
export function announceAnswer(ctx: RunContext, iteration: number, q: QuestionRecord): void {
  ctx.emit({
    type: 'human.answered',
    iteration,
    id: q.id,
    kind: q.kind,
    answer: q.answer ?? '',
    by: q.by ?? 'timeout',
    reason: q.reason,
  });
}

/** The message of a timed-out wait that stops the run (`human.on_timeout: stop`). */
export function humanTimeoutMessage(ctx: RunContext, what: string): string {
  const key =
    ctx.config.RObot.enabled && ctx.config.RObot.timeout_seconds !== undefined
      ? 'RObot.timeout_seconds'
      : 'human.timeout_seconds';
  return `nobody answered ${what} within ${key} (${humanTimeoutSeconds(ctx.config)} s; human.on_timeout: stop)`;
}

/** The question or approval the loop waits for (`waiting_for_human`), or null: it runs again. */
export function setWaitingFor(state: LoopState, waiting: LoopState['waiting_for']): void {
  setStatus(state, waiting ? 'waiting_for_human' : 'running');
  state.waiting_for = waiting;
}

/** The held question was settled or withdrawn: `--resume` has nothing to return to. */
export function forgetHeldQuestion(state: LoopState): void {
  state.held_question = null;
}
