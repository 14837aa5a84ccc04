import { topicMatches } from '../../config/topic-match.ts';
import type { PendingEvent } from '../../state/loop-state.ts';
import { queueEvents, setQueue } from '../context/event-queue.ts';
import type { RunContext } from '../context/run-context.ts';
import { type Stop, stop } from '../decide/limits.ts';
import { runHookPhase } from '../hooks/run-hooks.ts';
import { queueGuidance } from './control-inbox.ts';
import { abandonedWaitStop, askHuman, humanTimeoutMessage } from './human-wait.ts';

/** The topic an agent publishes to ask a human between iterations (ralph-orchestrator's convention). */
export const HUMAN_INTERACT = 'human.interact';
/** The event the answer comes back as, for a hat that triggers on it. */
export const HUMAN_RESPONSE = 'human.response';

/** The question of a `human.interact` payload: a string, or `{question|text, options?}`. */
export function interactQuestion(payload: unknown): { text: string; options?: string[] | undefined } {
  if (typeof payload === 'string' && payload.trim() !== '') return { text: payload.trim() };
  if (typeof payload === 'object' && payload !== null) {
    const o = payload as Record<string, unknown>;
    const text =
      typeof o.question === 'string' ? o.question : typeof o.text === 'string' ? o.text : undefined;
    const options = Array.isArray(o.options)
      ? o.options.filter((x): x is string => typeof x === 'string')
      : [];
    if (text && text.trim() !== '')
      return { text: text.trim(), options: options.length > 0 ? options : undefined };
  }
  return {
    text: `The agent asked for a human without saying what about (payload: ${JSON.stringify(payload)})`,
  };
}

/**
 * `human.interact` events parked the loop: each question waits for `ralph answer` (or the timeout);
 * the next prompt carries the question and the answer, and with hats a `human.response` (or, when
 * no hat triggers on that, `task.resume`) event routes the work on.
 */
export async function answerInteractions(ctx: RunContext): Promise<Stop | undefined> {
  const { state, config } = ctx;
  const asks = state.pending_events.filter((e) => e.topic === HUMAN_INTERACT);
  if (asks.length === 0) return undefined;
  setQueue(
    state,
    state.pending_events.filter((e) => e.topic !== HUMAN_INTERACT),
  );
  for (const [i, event] of asks.entries()) {
    const { text, options } = interactQuestion(event.payload);
    const point = { iteration: event.iteration ?? state.iterations, humanInteract: { question: text } };
    const refused = await runHookPhase(ctx, 'pre.human.interact', point);
    if (refused) {
      // Asked again when the run goes on (--resume).
      queueEvents(state, asks.slice(i));
      ctx.persist();
      return refused;
    }
    const outcome = await askHuman(ctx, { kind: 'question', text, options, hold: true });
    if (outcome.kind === 'abandoned') {
      // Waited for again (the same question id) when the run goes on.
      queueEvents(state, asks.slice(i));
      ctx.persist();
      return abandonedWaitStop(ctx);
    }
    const answer = outcome.record.answer ?? '';
    queueGuidance(state, {
      id: outcome.record.id,
      kind: 'answer',
      text: `You asked a human: ${JSON.stringify(text)} — ${outcome.kind === 'timeout' ? 'nobody answered in time; default answer' : 'the answer'}: ${answer}`,
      source: outcome.record.by ?? 'cli',
    });
    if (ctx.hatsMode) queueEvents(state, [responseEvent(ctx, text, answer, event)]);
    ctx.persist();
    const after = await runHookPhase(ctx, 'post.human.interact', {
      ...point,
      humanInteract: { question: text, answer, by: outcome.record.by ?? 'timeout' },
    });
    if (after) return after;
    if (outcome.kind === 'timeout' && config.human.on_timeout === 'stop')
      return stop('human_timeout', humanTimeoutMessage(ctx, `question ${outcome.record.id}`));
  }
  return undefined;
}

function responseEvent(ctx: RunContext, question: string, answer: string, asked: PendingEvent): PendingEvent {
  const handled = Object.values(ctx.config.hats).some((h) =>
    h.triggers.some((t) => topicMatches(t, HUMAN_RESPONSE)),
  );
  const e: PendingEvent = {
    topic: handled ? HUMAN_RESPONSE : 'task.resume',
    payload: { question, answer },
    source: 'human',
    iteration: asked.iteration,
  };
  ctx.publish(e, null);
  return e;
}
