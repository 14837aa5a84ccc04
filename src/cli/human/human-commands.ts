import { DEFAULT_HUMAN_ANSWER } from '../../config/schema/operations-values.ts';
import { ExitCode, RalphError, UsageError } from '../../errors.ts';
import { ask } from '../../human/ask.ts';
import {
  type AnswerReceipt,
  answer,
  approve,
  type ControlTarget,
  pause,
  reject,
  resume,
  stop,
  tell,
} from '../../human/control.ts';
import { damagedQuestionLines, openQuestions } from '../../human/control-files.ts';
import { createRedactor } from '../../observe/redact.ts';
import { skippedNotice } from '../../state/io/jsonl.ts';
import { ralphPaths } from '../../state/paths.ts';
import type { CliIO } from '../io.ts';
import { NON_NEGATIVE, parseNumber } from '../options.ts';
import { untilInterrupted } from '../signals.ts';

// argv → the library's control functions (src/human/control.ts) → a line of text.

/** The workspace a command steers: the agent's (inside a loop) or the current directory. */
function workspaceOf(io: CliIO): string {
  return io.env.RALPH_WORKSPACE_ROOT ?? io.cwd;
}

/** The loop a settling command steers, with the caller's environment (an agent's is refused). */
function personTarget(io: CliIO): ControlTarget {
  return { workspace: workspaceOf(io), env: io.env };
}

/** An answer to a loop's question given while no loop runs: the run waits for it on --resume. */
function whenStopped(r: AnswerReceipt): string {
  if (r.question.run_id === null || r.loopPid !== undefined) return '';
  return ' — no loop is running: `ralph run --resume` goes on from it';
}

const QUESTION_ID = /^[qa]-[0-9a-f]{1,8}$/;

/** `[ID] TEXT…`: the id when the first word is one and more words follow. */
function idAndText(args: string[]): { id: string | undefined; text: string } {
  const [first, ...rest] = args as [string, ...string[]];
  const hasId = rest.length > 0 && QUESTION_ID.test(first);
  return { id: hasId ? first : undefined, text: (hasId ? rest : args).join(' ') };
}

/** `ralph tell TEXT…` */
export function tellCommand(words: string[], io: CliIO): number {
  const sent = tell(workspaceOf(io), words.join(' '));
  io.out(
    sent.loopPid !== undefined
      ? `queued ${sent.command.id}: the next iteration's prompt carries it\n`
      : `queued ${sent.command.id}: no loop is running; the next \`ralph run\` carries it in its first prompt\n`,
  );
  return ExitCode.ok;
}

/** `ralph answer [ID] TEXT`; without arguments, the open questions and approvals. */
export function answerCommand(args: string[], io: CliIO, flags: { json?: boolean | undefined } = {}): number {
  const ws = workspaceOf(io);
  if (args.length === 0) {
    const file = ralphPaths(ws).questions;
    const open = openQuestions(file);
    const damaged = damagedQuestionLines(file);
    if (damaged.length > 0) io.err(`ralph: ${skippedNotice(file, damaged)}\n`);
    if (flags.json) {
      io.out(`${JSON.stringify(open, null, 2)}\n`);
      return ExitCode.ok;
    }
    if (open.length === 0) io.out('no question or approval is waiting\n');
    for (const q of open)
      io.out(
        `${q.id} ${q.kind}${q.iteration ? ` (iteration ${q.iteration})` : ''}: ${q.text}${q.options ? ` [${q.options.join(' | ')}]` : ''}\n`,
      );
    return ExitCode.ok;
  }
  const { id, text } = idAndText(args);
  const r = answer(personTarget(io), text, { id });
  if (flags.json) {
    io.out(`${JSON.stringify({ answered: r.question, loop_running: r.loopPid !== undefined }, null, 2)}\n`);
    return ExitCode.ok;
  }
  io.out(`answered ${r.question.id}: ${r.question.answer}${whenStopped(r)}\n`);
  return ExitCode.ok;
}

/** `ralph approve [ID]` */
export function approveCommand(id: string | undefined, io: CliIO): number {
  const r = approve(personTarget(io), { id });
  io.out(`approved ${r.question.id} (${r.question.point ?? 'review point'})${whenStopped(r)}\n`);
  return ExitCode.ok;
}

/** `ralph reject [ID] REASON` */
export function rejectCommand(args: string[], io: CliIO): number {
  const { id, text: reason } = idAndText(args);
  const r = reject(personTarget(io), reason, { id });
  io.out(`rejected ${r.question.id} (${r.question.point ?? 'review point'}): ${reason}${whenStopped(r)}\n`);
  return ExitCode.ok;
}

/** `ralph pause` / `ralph resume` */
export function pauseResumeCommand(kind: 'pause' | 'resume', io: CliIO): number {
  const sent = (kind === 'pause' ? pause : resume)(personTarget(io));
  io.out(
    `asked the loop (pid ${sent.loopPid}): it ${kind === 'pause' ? 'pauses before the next iteration (the current one finishes)' : 'goes on'}\n`,
  );
  return ExitCode.ok;
}

/** `ralph stop [--now]`: through the inbox, like every other command to the loop. */
export function stopCommand(flags: { now?: boolean | undefined }, io: CliIO): number {
  const sent = stop(workspaceOf(io), { now: flags.now });
  io.out(
    flags.now
      ? `asked the loop (pid ${sent.loopPid}) to stop now: its agent will be killed and state saved\n`
      : `asked the loop (pid ${sent.loopPid}) to stop after the current iteration (use --now to kill the agent)\n`,
  );
  return ExitCode.ok;
}

export async function askCommand(
  text: string,
  opts: { options?: string | undefined; timeout?: number | undefined },
  io: CliIO,
): Promise<number> {
  if (text.trim() === '') throw new UsageError('the question is empty');
  // The question is written redacted: every reader of the questions file (status, answer, the
  // dashboard, Telegram, webhooks) then shows it so (the agent's environment carries the secrets).
  const redact = createRedactor(io.env);
  // Inside a loop the loop passes human.timeout_seconds in the environment.
  const fromEnv = io.env.RALPH_HUMAN_TIMEOUT_SECONDS;
  const timeoutS =
    opts.timeout ??
    (fromEnv === undefined ? 0 : parseNumber('RALPH_HUMAN_TIMEOUT_SECONDS', fromEnv, NON_NEGATIVE));
  const options = opts.options
    ?.split(',')
    .map((o) => redact(o.trim()))
    .filter((o) => o !== '');
  const ws = workspaceOf(io);
  const iteration = Number(io.env.RALPH_ITERATION);
  // Ctrl-C: the question is withdrawn, nobody answers it for nothing. Inside a loop, the loop
  // decides: it withdraws the question when the agent is gone, unless a stop cut the iteration
  // short; then the re-run iteration's `ralph ask` waits for the same question again.
  const inLoop = io.env.RALPH_RUN_ID !== undefined && io.env.RALPH_RUN_ID !== '';
  const outcome = await untilInterrupted(
    (signal) =>
      ask({
        questionsFile: ralphPaths(ws).questions,
        kind: 'question',
        text: redact(text.trim()),
        options,
        runId: io.env.RALPH_RUN_ID ?? null,
        iteration: Number.isInteger(iteration) && iteration > 0 ? iteration : null,
        timeoutMs: timeoutS * 1000,
        defaultAnswer: io.env.RALPH_HUMAN_DEFAULT_ANSWER ?? DEFAULT_HUMAN_ANSWER,
        signal,
        keepOpen: inLoop,
        rejoin: inLoop,
        onAsked: (q) =>
          io.err(
            `waiting for a human: ralph answer ${q.id} "…"${options ? ` (one of: ${options.join(', ')})` : ''}\n`,
          ),
      }),
    ['SIGINT', 'SIGTERM'],
  );
  if (outcome.kind === 'abandoned')
    throw new RalphError(
      'interrupted',
      inLoop
        ? `interrupted while waiting; the loop withdraws question ${outcome.record.id}, or asks it again when the iteration re-runs`
        : 'interrupted while waiting; the question was withdrawn',
      { exitCode: ExitCode.interrupted },
    );
  if (outcome.kind === 'timeout') io.err('no answer in time; printing the default answer\n');
  io.out(`${outcome.record.answer ?? ''}\n`);
  return ExitCode.ok;
}
