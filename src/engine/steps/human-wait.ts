import type { ApprovalPointName } from '../../config/schema.ts';
import { type AskOutcome, ask } from '../../human/ask.ts';
import type { QuestionRecord } from '../../human/control-files.ts';
import { type RunContext, runtimeLeftMs } from '../context/run-context.ts';
import { consumeControl, controlPending } from './control-step.ts';

export interface HumanRequest {
  kind: 'question' | 'approval';
  text: string;
  options?: string[] | undefined;
  point?: ApprovalPointName | undefined;
}

/**
 * Waits between iterations (or at a review point) for a human: the status is `waiting_for_human`,
 * the question is in `control/questions.jsonl` for `ralph answer`/`approve`/`reject`, the TUI and
 * the dashboard, and a notification fires. `ralph stop` and Ctrl-C end the wait (`abandoned`);
 * `human.timeout_seconds` settles it as `timeout`.
 */
export async function askHuman(ctx: RunContext, request: HumanRequest): Promise<AskOutcome> {
  const { state, config } = ctx;
  const iteration = state.current?.number ?? state.iterations;
  const timeoutMs = config.human.timeout_seconds * 1000;
  const runtimeLeft = runtimeLeftMs(ctx);
  const outcome = await ask({
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
    signal: ctx.options.signal,
    now: ctx.now,
    giveUp: () => {
      if (controlPending(ctx)) consumeControl(ctx);
      return state.stop_requested === true;
    },
    onAsked: (q) => {
      state.status = 'waiting_for_human';
      state.waiting_for = { id: q.id, kind: q.kind, text: q.text, expires_at: q.expires_at ?? null };
      ctx.persist();
      announceQuestion(ctx, iteration, q);
    },
  });
  state.status = 'running';
  state.waiting_for = null;
  ctx.persist();
  if (outcome.kind !== 'abandoned') {
    announceAnswer(ctx, iteration, outcome.record);
    ctx.emit({ type: 'loop.resumed', iteration, from: 'waiting_for_human' });
  }
  return outcome;
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
  return `nobody answered ${what} within human.timeout_seconds (${ctx.config.human.timeout_seconds} s; human.on_timeout: stop)`;
}
