import { statSync } from 'node:fs';
import {
  appendJsonLine,
  type QuestionRecord,
  readQuestions,
  withdrawQuestion,
} from '../../human/control-files.ts';
import { redactLine } from '../../observe/redact.ts';
import { overwriteLinesInPlace } from '../../state/io/overwrite-lines.ts';
import type { RunContext } from '../context/run-context.ts';
import { announceAnswer, announceQuestion, humanTimeoutMessage, setWaitingFor } from './human-wait.ts';

export interface QuestionWatch {
  /** Reads the questions file if it changed; announces new questions and their answers. */
  poll(): void;
  /** True while a question the agent asked waits for a human (its idle timeout is then suspended). */
  waiting(): boolean;
  /** Ids of the questions the agent asked during the iteration. */
  asked(): string[];
  /**
   * The agent is gone: questions it left open are withdrawn (nobody waits for their answer), unless
   * `keepOpen` (a stop cut the iteration short: its re-run asks them again, same ids).
   */
  close(keepOpen?: boolean): void;
}

/**
 * Watches `control/questions.jsonl` while the agent runs, for the questions it asks with `ralph ask`:
 * the state says `waiting_for_human` while one is open, and each question and answer is an event
 * (console, TUI, dashboard, notifications).
 */
export function createQuestionWatch(ctx: RunContext, iteration: number): QuestionWatch {
  const { state } = ctx;
  const seen = new Map<string, boolean>();
  let size = -1;
  let open = 0;
  let latest: QuestionRecord[] = [];
  const settle = (q: QuestionRecord) => {
    announceAnswer(ctx, iteration, q);
    if (q.by === 'timeout' && ctx.config.human.on_timeout === 'stop')
      state.human_timeout = humanTimeoutMessage(ctx, `question ${q.id} of iteration ${iteration}`);
  };
  return {
    poll: () => {
      let now: number | undefined;
      try {
        // No questions file (the common case) costs a stat, not an exception.
        now = statSync(ctx.paths.questions, { throwIfNoEntry: false })?.size;
      } catch {}
      if (now === undefined || now === size) return;
      size = now;
      // `ralph ask` redacts, but an agent may write the file itself: a line with a secret is rewritten
      // redacted before `ralph answer`, the dashboard or Telegram read it again.
      overwriteLinesInPlace(ctx.paths.questions, 0, now, (line) => redactLine(line, ctx.redact));
      const mine = [...readQuestions(ctx.paths.questions).values()].filter(
        (q) => q.kind === 'question' && q.run_id === state.run_id && q.iteration === iteration,
      );
      for (const q of mine) {
        const wasAnswered = seen.get(q.id);
        if (wasAnswered === undefined) announceQuestion(ctx, iteration, q);
        if (q.answered && wasAnswered !== true) settle(q);
        seen.set(q.id, q.answered === true);
      }
      const openNow = mine.filter((q) => !q.answered);
      latest = openNow;
      if (openNow.length > 0 !== open > 0) {
        const first = openNow[0];
        // Redacted again: a line appended after the cleaning above is cleaned only at the next poll.
        setWaitingFor(
          state,
          first
            ? {
                id: first.id,
                kind: 'question',
                text: ctx.redact(first.text),
                expires_at: first.expires_at ?? null,
              }
            : null,
        );
        ctx.persist({ fsync: false });
        if (openNow.length === 0) ctx.emit({ type: 'loop.resumed', iteration, from: 'waiting_for_human' });
      }
      open = openNow.length;
    },
    waiting: () => open > 0,
    asked: () => [...seen.keys()],
    close(keepOpen = false) {
      this.poll();
      for (const q of latest)
        if (keepOpen) appendJsonLine(ctx.paths.questions, { ...q, held: true });
        else withdrawQuestion(ctx.paths.questions, q, ctx.now());
      if (latest.length > 0 || state.status === 'waiting_for_human') {
        latest = [];
        open = 0;
        setWaitingFor(state, null);
      }
    },
  };
}
