import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { appendLine } from '../state/io/append-line.ts';
import { jsonWhere, readJsonl, readJsonlSince, type SkippedLine, skippedLines } from '../state/io/jsonl.ts';
import {
  array,
  boolean,
  checkedLine,
  looseObject,
  nullable,
  number,
  oneOf,
  optional,
  string,
} from '../state/loop-state/checks.ts';
import { ralphPaths } from '../state/paths.ts';

/** What a command in `control/inbox.jsonl` asks of the loop (DESIGN.md §5). */
export const INBOX_KINDS = [
  'stop',
  'stop_now',
  'pause',
  'resume',
  'guidance',
  'answer',
  'approve',
  'reject',
] as const;
/** The kind of an inbox command: one of {@link INBOX_KINDS}. */
export type InboxKind = (typeof INBOX_KINDS)[number];

/** Who wrote a command or answered a question. */
export type ControlSource =
  | 'cli'
  | 'tui'
  | 'dashboard'
  | 'fleet'
  | 'telegram'
  | 'agent'
  | 'timeout'
  | 'withdrawn';

/** One line of `control/inbox.jsonl`; the loop consumes each id once. */
export interface InboxCommand {
  id: string;
  ts: string;
  kind: InboxKind;
  text?: string | undefined;
  /** The question or approval an answer/approve/reject is for. */
  ref?: string | undefined;
  source: ControlSource;
}

/** Where a loop waits for a human's approval (`gates.approval`). */
export type ApprovalPoint = 'before_commit' | 'before_push' | 'before_complete';

/** One line of `control/questions.jsonl`; a later line with the same id (the answer) supersedes it. */
export interface QuestionRecord {
  id: string;
  ts: string;
  kind: 'question' | 'approval';
  text: string;
  options?: string[] | undefined;
  run_id: string | null;
  iteration: number | null;
  /** For an approval: the review point that asked. */
  point?: ApprovalPoint | undefined;
  /** When an unanswered question gives up (epoch ms), or null for no time limit. */
  expires_at?: number | null | undefined;
  answered?: boolean | undefined;
  /** The answer's text; for an approval, `approve` or `reject`. */
  answer?: string | undefined;
  /** An approval's rejection reason. */
  reason?: string | undefined;
  by?: ControlSource | undefined;
  answered_at?: string | undefined;
  /** Kept open when a stop cut its iteration short: the re-run's `ralph ask` gets it (and its answer). */
  held?: boolean | undefined;
}

/** A short random id with a kind prefix (`q-1a2b3c4d`), unique enough for one workspace. */
export function newId(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Appends one JSON line, creating `control/` first. */
export function appendJsonLine(path: string, value: object): void {
  mkdirSync(dirname(path), { recursive: true });
  appendLine(path, JSON.stringify(value));
}

/**
 * Appends one command to the workspace's inbox. The writers (CLI, TUI, dashboard, fleet) only
 * append; the loop consumes each id once, so a command is never lost or applied twice.
 */
export function sendCommand(
  workspace: string,
  kind: InboxKind,
  source: ControlSource,
  fields: { text?: string | undefined; ref?: string | undefined } = {},
): InboxCommand {
  const command: InboxCommand = {
    id: newId(kind === 'guidance' ? 'g' : 'c'),
    ts: new Date().toISOString(),
    kind,
    ...(fields.text !== undefined ? { text: fields.text } : {}),
    ...(fields.ref !== undefined ? { ref: fields.ref } : {}),
    source,
  };
  appendJsonLine(ralphPaths(workspace).inbox, command);
  return command;
}

/** Withdraws an open question: nothing waits for its answer any more (the first answer wins). */
export function withdrawQuestion(path: string, q: QuestionRecord, at: number): QuestionRecord {
  const withdrawn: QuestionRecord = {
    ...q,
    answered: true,
    answer: '',
    by: 'withdrawn',
    answered_at: new Date(at).toISOString(),
  };
  appendJsonLine(path, withdrawn);
  return withdrawn;
}

/** Withdraws question `id` if it is still open (a run that held it moved past it). */
export function withdrawIfOpen(path: string, id: string, at: number): void {
  const q = readQuestions(path).get(id);
  if (q && !q.answered) withdrawQuestion(path, q, at);
}

/** Withdraws the questions run `runId` left open (it is replaced by a new run: nobody waits for them). */
export function withdrawRunQuestions(path: string, runId: string, at: number): void {
  for (const q of readQuestions(path).values())
    if (!q.answered && q.run_id === runId) withdrawQuestion(path, q, at);
}

function isInboxCommand(v: unknown): v is InboxCommand {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.id === 'string' &&
    typeof o.kind === 'string' &&
    (INBOX_KINDS as readonly string[]).includes(o.kind) &&
    (o.text === undefined || typeof o.text === 'string') &&
    (o.ref === undefined || typeof o.ref === 'string')
  );
}

export interface InboxRead {
  commands: InboxCommand[];
  /** Byte offset after the last complete line read. */
  nextOffset: number;
  /** Lines that were not a command (kept in the file, skipped). */
  malformed: number;
}

/**
 * The complete lines of the inbox after `offset`. A torn last line (a writer mid-append) is left
 * for the next read; a file shorter than the offset (replaced or truncated) is read from the start,
 * and the consumed ids keep its commands from running twice.
 */
export function readInbox(path: string, offset: number): InboxRead {
  const chunk = readJsonlSince(path, offset, inboxLine);
  return {
    commands: chunk.records,
    nextOffset: chunk.nextOffset,
    malformed: chunk.items.length - chunk.records.length,
  };
}

const inboxLine = jsonWhere(isInboxCommand, 'a control command');
// Every field a reader touches (`ralph status`, the dashboard, `ralph answer`): the agent can append
// to questions.jsonl, so a line with another type is skipped like a torn one.
const questionShape = looseObject({
  id: string(),
  text: string(),
  ts: optional(string()),
  kind: optional(oneOf(['question', 'approval'])),
  options: optional(array(string())),
  run_id: optional(nullable(string())),
  iteration: optional(nullable(number())),
  point: optional(string()),
  expires_at: optional(nullable(number())),
  answered: optional(boolean),
  answer: optional(string()),
  reason: optional(string()),
  by: optional(string()),
  answered_at: optional(string()),
  held: optional(boolean),
});
const questionLine = checkedLine<QuestionRecord>(questionShape, 'a question');

/** Lines of the questions file that are not questions (kept in the file, skipped by every reader). */
export function damagedQuestionLines(path: string): SkippedLine[] {
  return skippedLines(readJsonl(path, questionLine).items);
}

/** Every question and approval by id, each as its newest line says (answers supersede questions). */
export function readQuestions(path: string): Map<string, QuestionRecord> {
  const byId = new Map<string, QuestionRecord>();
  // A torn line from a crash mid-append is not a question: skipped.
  for (const q of readJsonl(path, questionLine).records) {
    // The first answer wins: a second one (two terminals, or a human racing the timeout) is ignored.
    const known = byId.get(q.id);
    if (!known?.answered) byId.set(q.id, { ...known, ...q });
  }
  return byId;
}

/** The questions and approvals nobody has answered yet, oldest first. */
export function openQuestions(path: string, runId?: string): QuestionRecord[] {
  return [...readQuestions(path).values()].filter(
    (q) => !q.answered && (runId === undefined || q.run_id === null || q.run_id === runId),
  );
}
