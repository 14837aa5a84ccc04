import { UsageError } from '../errors.ts';
import { createRedactor } from '../observe/redact.ts';
import { jsonWhere, readJsonlSince } from '../state/io/jsonl.ts';
import { ralphPaths } from '../state/paths.ts';
import { appendJsonLine, newId } from './control-files.ts';

/** One progress note, a line of `.ralph/control/progress.jsonl` (append-only). */
export interface ProgressNote {
  id: string;
  ts: string;
  text: string;
  run_id: string | null;
  iteration: number | null;
}

/** The longest note a human is sent (Telegram takes 4,096 characters a message; a note is a line or two). */
export const MAX_PROGRESS_CHARS = 2000;

/** A note's text, trimmed and cut at MAX_PROGRESS_CHARS (marked as cut). */
export function boundProgressText(text: string): { text: string; cut: boolean } {
  const trimmed = text.trim();
  if (trimmed.length <= MAX_PROGRESS_CHARS) return { text: trimmed, cut: false };
  return { text: `${trimmed.slice(0, MAX_PROGRESS_CHARS - 1)}…`, cut: true };
}

const isNote = (v: unknown): v is ProgressNote => {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.id === 'string' && typeof o.text === 'string';
};

/** The notes appended since `offset` (lines that are no note are skipped), and where the next read starts. */
export function readProgressNotesSince(
  path: string,
  offset: number,
): { notes: ProgressNote[]; nextOffset: number } {
  const chunk = readJsonlSince(path, offset, jsonWhere(isNote, 'a progress note'), { maxBytes: 1 << 20 });
  return { notes: chunk.records, nextOffset: chunk.nextOffset };
}

/** What `sendProgressNote` did: the note as written, and where the loop sends it. */
export interface ProgressReceipt {
  note: ProgressNote;
  /** The run's human channel, as the loop told its agent (`RALPH_HUMAN_CHANNEL`); undefined outside a loop. */
  channel: 'telegram' | 'none' | undefined;
  /** The text was longer than MAX_PROGRESS_CHARS and was cut. */
  cut: boolean;
}

/**
 * `ralph tools interact progress`: a note from the agent to the human that waits for nothing. It is
 * written, redacted and bounded, to the workspace's `control/progress.jsonl`; the running loop
 * reads it within a second and sends it on its human channel (Telegram with `RObot` on) as a
 * `human.progress` event, which the run log and the event stream record. The agent never holds
 * the channel's credentials: the loop sends.
 */
export function sendProgressNote(workspace: string, text: string, env: NodeJS.ProcessEnv): ProgressReceipt {
  if (text.trim() === '')
    throw new UsageError('the progress note is empty: ralph tools interact progress "<message>"');
  const bounded = boundProgressText(createRedactor(env)(text));
  const iteration = Number(env.RALPH_ITERATION);
  const note: ProgressNote = {
    id: newId('p'),
    ts: new Date().toISOString(),
    text: bounded.text,
    run_id: env.RALPH_RUN_ID || null,
    iteration: Number.isInteger(iteration) && iteration > 0 ? iteration : null,
  };
  appendJsonLine(ralphPaths(workspace).progressNotes, note);
  const channel = env.RALPH_HUMAN_CHANNEL;
  return {
    note,
    channel: note.run_id === null ? undefined : channel === 'telegram' ? 'telegram' : 'none',
    cut: bounded.cut,
  };
}
