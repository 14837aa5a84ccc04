import { poll } from '../state/io/jsonl.ts';
import {
  type ApprovalPoint,
  appendJsonLine,
  newId,
  type QuestionRecord,
  readQuestions,
  withdrawQuestion,
} from './control-files.ts';

export interface AskInput {
  questionsFile: string;
  kind: QuestionRecord['kind'];
  text: string;
  options?: string[] | undefined;
  point?: ApprovalPoint | undefined;
  runId: string | null;
  iteration: number | null;
  /** No answer after this long: the question is settled by `timeout` (0 or undefined: wait on). */
  timeoutMs?: number | undefined;
  /** What a question settled by timeout answers (an approval settled by timeout says `timeout`). */
  defaultAnswer: string;
  signal?: AbortSignal | undefined;
  /** Checked at every poll: true gives up the wait (e.g. the loop was told to stop). */
  giveUp?: (() => boolean) | undefined;
  /** Given up, the question stays open (not withdrawn): the loop waits for it again on --resume. */
  keepOpen?: boolean | undefined;
  /**
   * A question of the same run and iteration with the same text and options that the loop held
   * (a stop cut the iteration short while it waited) is waited for again instead of asked anew; an
   * answer given meanwhile is the answer. (Asked twice more after that, it gets the same answer.)
   */
  rejoin?: boolean | undefined;
  /**
   * Whether an answer in the questions file is a person's (the loop's: one with its command in the
   * control inbox, which agents cannot write). An answer it does not trust counts as no answer: a
   * line an agent appended does not settle the loop's question or approval. Default: every answer.
   */
  trusts?: ((record: QuestionRecord) => boolean) | undefined;
  /** Called once the question is written, before the wait. */
  onAsked?: ((q: QuestionRecord) => void) | undefined;
  pollMs?: number | undefined;
  now?: (() => number) | undefined;
}

export type AskOutcome =
  | { kind: 'answered'; record: QuestionRecord }
  | { kind: 'timeout'; record: QuestionRecord }
  | { kind: 'abandoned'; record: QuestionRecord };

/** Writes a question (or approval) and waits for its answer, the timeout, or the caller giving up. */
export async function ask(input: AskInput): Promise<AskOutcome> {
  const twin = input.rejoin ? heldTwin(input) : undefined;
  if (twin) return askAgain(input, twin);
  const now = input.now ?? Date.now;
  const timeoutMs = input.timeoutMs ?? 0;
  const question: QuestionRecord = {
    id: newId(input.kind === 'question' ? 'q' : 'a'),
    ts: new Date(now()).toISOString(),
    kind: input.kind,
    text: input.text,
    ...(input.options && input.options.length > 0 ? { options: input.options } : {}),
    ...(input.point ? { point: input.point } : {}),
    run_id: input.runId,
    iteration: input.iteration,
    expires_at: timeoutMs > 0 ? now() + timeoutMs : null,
  };
  appendJsonLine(input.questionsFile, question);
  input.onAsked?.(question);
  return waitForAnswer(input, question);
}

/** The held question `input` asks again (same run, iteration, kind, text and options), if any. */
function heldTwin(input: AskInput): QuestionRecord | undefined {
  if (input.runId === null || input.iteration === null) return undefined;
  const options = JSON.stringify(input.options ?? []);
  return [...readQuestions(input.questionsFile).values()].find(
    (q) =>
      q.held === true &&
      q.by !== 'withdrawn' &&
      q.run_id === input.runId &&
      q.iteration === input.iteration &&
      q.kind === input.kind &&
      q.text === input.text &&
      JSON.stringify(q.options ?? []) === options,
  );
}

/**
 * Waits again for a question asked before a stop or Ctrl-C: the same id, with a fresh timeout from
 * now. An answer given meanwhile (`ralph answer`/`approve` while no loop ran) settles it at once.
 */
export function askAgain(input: AskInput, asked: QuestionRecord): Promise<AskOutcome> {
  if (asked.answered && trusted(input, asked))
    return Promise.resolve({ kind: asked.by === 'timeout' ? 'timeout' : 'answered', record: asked });
  const now = input.now ?? Date.now;
  const timeoutMs = input.timeoutMs ?? 0;
  const question: QuestionRecord = { ...asked, expires_at: timeoutMs > 0 ? now() + timeoutMs : null };
  appendJsonLine(input.questionsFile, question);
  input.onAsked?.(question);
  return waitForAnswer(input, question);
}

/** An answer the wait may take (`trusts`); a timeout is trusted only as this wait writes it. */
function trusted(input: AskInput, record: QuestionRecord): boolean {
  return input.trusts?.(record) ?? true;
}

/** Polls the questions file until the question is answered (first answer wins), times out or is given up. */
export async function waitForAnswer(input: AskInput, question: QuestionRecord): Promise<AskOutcome> {
  const reads = poll(() => settle(input, question), {
    signal: input.signal,
    intervalMs: input.pollMs ?? 200,
  });
  for await (const outcome of reads) if (outcome) return outcome;
  // The signal aborted mid-wait: an answer that came first still wins, else the question is given up.
  return settle(input, question) ?? abandon(input, question);
}

/** How the question stands now: answered, given up, timed out (and so settled), or still open (undefined). */
function settle(input: AskInput, question: QuestionRecord): AskOutcome | undefined {
  const now = input.now ?? Date.now;
  const record = readQuestions(input.questionsFile).get(question.id);
  if (record?.answered && trusted(input, record))
    return { kind: record.by === 'timeout' ? 'timeout' : 'answered', record };
  if (input.signal?.aborted || input.giveUp?.()) return abandon(input, question);
  if (question.expires_at == null || now() < question.expires_at) return undefined;
  const settled: QuestionRecord = {
    ...question,
    answered: true,
    answer: question.kind === 'question' ? input.defaultAnswer : 'timeout',
    by: 'timeout',
    answered_at: new Date(now()).toISOString(),
  };
  appendJsonLine(input.questionsFile, settled);
  // A human who answered in the same instant wins: read back what the file settled on.
  const read = readQuestions(input.questionsFile).get(question.id);
  const final = read && trusted(input, read) ? read : settled;
  return { kind: final.by === 'timeout' ? 'timeout' : 'answered', record: final };
}

/** Gives the wait up: the question stays open with `keepOpen`, else it is withdrawn. */
function abandon(input: AskInput, question: QuestionRecord): AskOutcome {
  if (input.keepOpen) return { kind: 'abandoned', record: question };
  // Withdrawn, so nobody answers a question nothing waits for any more.
  const withdrawn = withdrawQuestion(input.questionsFile, question, (input.now ?? Date.now)());
  return { kind: 'abandoned', record: withdrawn };
}
