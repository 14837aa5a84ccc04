import { statSync } from 'node:fs';
import { humanChannel } from '../../config/human-checks.ts';
import { boundProgressText, readProgressNotesSince } from '../../human/progress-notes.ts';
import type { RunContext } from '../context/run-context.ts';

/** The notes one iteration sends to the human; later ones stay in the file only (a chat is not a log). */
export const MAX_NOTES_PER_ITERATION = 20;

export interface ProgressWatch {
  /** Reads the notes appended since the last poll; each of this iteration's is a `human.progress` event. */
  poll(): void;
}

/**
 * Watches `control/progress.jsonl` while the agent runs, for the notes it sends with `ralph tools
 * interact progress`: each note of this run and iteration becomes a `human.progress` event, which
 * the Telegram reporter sends (with `RObot` on) and the run log and event stream record. The text
 * is redacted and bounded again: the agent may write the file itself.
 */
export function createProgressWatch(ctx: RunContext, iteration: number): ProgressWatch {
  const file = ctx.paths.progressNotes;
  // Notes written before this iteration began are not its own.
  let offset = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  let sent = 0;
  const channel = humanChannel(ctx.config);
  return {
    poll() {
      const { notes, nextOffset } = readProgressNotesSince(file, offset);
      offset = nextOffset;
      for (const note of notes) {
        if (note.run_id !== ctx.state.run_id || note.iteration !== iteration) continue;
        if (++sent > MAX_NOTES_PER_ITERATION) {
          if (sent === MAX_NOTES_PER_ITERATION + 1)
            ctx.emit({
              type: 'notice',
              level: 'warn',
              message: `iteration ${iteration} sent more than ${MAX_NOTES_PER_ITERATION} progress notes: the rest stay in ${file} only`,
            });
          continue;
        }
        const { text } = boundProgressText(ctx.redact(note.text));
        ctx.emit({ type: 'human.progress', iteration, id: note.id, text, channel });
      }
    },
  };
}
