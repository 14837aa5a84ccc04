import { RalphError } from '../errors.ts';
import { ralphPaths } from '../state/paths.ts';
import {
  appendJsonLine,
  type ControlSource,
  type InboxCommand,
  openQuestions,
  type QuestionRecord,
  readQuestions,
  sendCommand,
} from './control-files.ts';

/** A settled question or approval: its answered line and the inbox command that tells the loop. */
export interface Settled {
  question: QuestionRecord;
  command: InboxCommand;
}

function describeOpen(list: QuestionRecord[]): string {
  return list.map((q) => `${q.id} (${q.kind}: ${JSON.stringify(q.text.slice(0, 60))})`).join(', ');
}

/** The open question or approval an answer is for: the given id (or a unique prefix), else the only one. */
function pickOpen(workspace: string, kind: QuestionRecord['kind'], id: string | undefined): QuestionRecord {
  const paths = ralphPaths(workspace);
  const open = openQuestions(paths.questions).filter((q) => q.kind === kind);
  const noun = kind === 'question' ? 'question' : 'approval';
  if (id === undefined) {
    if (open.length === 1) return open[0] as QuestionRecord;
    if (open.length === 0)
      throw new RalphError('no_question', `no ${noun} is waiting for an answer in ${workspace}`);
    throw new RalphError(
      'usage',
      `${open.length} ${noun}s are waiting: name one by id, e.g. \`ralph ${kind === 'question' ? 'answer' : 'approve'} ${open[0]?.id} …\`; open: ${describeOpen(open)}`,
    );
  }
  const matches = open.filter((q) => q.id === id || q.id.startsWith(id));
  if (matches.length === 1) return matches[0] as QuestionRecord;
  const known = readQuestions(paths.questions).get(id);
  if (known?.answered)
    throw new RalphError(
      'no_question',
      `${noun} ${id} was already answered (${JSON.stringify(known.answer)} by ${known.by ?? 'someone'})`,
    );
  throw new RalphError(
    'no_question',
    `no open ${noun} ${JSON.stringify(id)}${open.length > 0 ? `; open: ${describeOpen(open)}` : ` in ${workspace}`}`,
  );
}

/** The option an answer names (case and surrounding space ignored), or an error listing the options. */
function matchOption(q: QuestionRecord, text: string): string {
  if (!q.options || q.options.length === 0) return text;
  const found = q.options.find((o) => o.trim().toLowerCase() === text.trim().toLowerCase());
  if (found !== undefined) return found;
  throw new RalphError(
    'usage',
    `question ${q.id} takes one of: ${q.options.map((o) => JSON.stringify(o)).join(', ')} (got ${JSON.stringify(text)})`,
  );
}

/** Answers an open question; the asking agent (or the waiting loop) gets it at once. */
export function answerQuestion(
  workspace: string,
  id: string | undefined,
  text: string,
  source: ControlSource,
): Settled {
  if (text.trim() === '') throw new RalphError('usage', 'the answer is empty');
  const q = pickOpen(workspace, 'question', id);
  const answer = matchOption(q, text.trim());
  const answered: QuestionRecord = {
    ...q,
    answered: true,
    answer,
    by: source,
    answered_at: new Date().toISOString(),
  };
  appendJsonLine(ralphPaths(workspace).questions, answered);
  return {
    question: answered,
    command: sendCommand(workspace, 'answer', source, { text: answer, ref: q.id }),
  };
}

/** Settles an open approval; a rejection's reason is the next feedback. */
export function settleApproval(
  workspace: string,
  id: string | undefined,
  verdict: { approve: true } | { approve: false; reason: string },
  source: ControlSource,
): Settled {
  if (!verdict.approve && verdict.reason.trim() === '')
    throw new RalphError('usage', 'say why: `ralph reject "the reason"` (the agent gets it as feedback)');
  const q = pickOpen(workspace, 'approval', id);
  const settled: QuestionRecord = {
    ...q,
    answered: true,
    answer: verdict.approve ? 'approve' : 'reject',
    ...(verdict.approve ? {} : { reason: verdict.reason.trim() }),
    by: source,
    answered_at: new Date().toISOString(),
  };
  appendJsonLine(ralphPaths(workspace).questions, settled);
  const command = sendCommand(workspace, verdict.approve ? 'approve' : 'reject', source, {
    ref: q.id,
    ...(verdict.approve ? {} : { text: verdict.reason.trim() }),
  });
  return { question: settled, command };
}
