import { humanSchema } from '../config/schema.ts';
import { ExitCode, RalphError, UsageError } from '../errors.ts';
import { ask } from '../human/ask.ts';
import { openQuestions } from '../human/control-files.ts';
import { answerQuestion, sendCommand, settleApproval, tell } from '../human/human-actions.ts';
import { liveHolder } from '../state/lock.ts';
import { ralphPaths } from '../state/paths.ts';
import type { CliIO } from './io.ts';

/** The workspace a command steers: the agent's (inside a loop) or the current directory. */
function workspaceOf(io: CliIO): string {
  return io.env.RALPH_WORKSPACE_ROOT ?? io.cwd;
}

/** The running loop's pid, or an error saying there is none (pause/resume/stop need one). */
function runningLoop(workspace: string): number {
  const lock = liveHolder(ralphPaths(workspace).lock);
  if (!lock)
    throw new RalphError(
      'not_running',
      `no Ralph loop is running in ${workspace} (to continue a stopped run: \`ralph run --resume\`)`,
    );
  return lock.pid;
}

function loopIsRunning(workspace: string): boolean {
  return liveHolder(ralphPaths(workspace).lock) !== undefined;
}

/** What an answer to a loop's question given while no loop runs leads to: the run waits for it on --resume. */
function whenStopped(workspace: string, q: { run_id: string | null }): string {
  if (q.run_id === null || loopIsRunning(workspace)) return '';
  return ' — no loop is running: `ralph run --resume` goes on from it';
}

const QUESTION_ID = /^[qa]-[0-9a-f]{1,8}$/;

/** `ralph tell TEXT…` */
export function tellCommand(words: string[], io: CliIO): number {
  const ws = workspaceOf(io);
  const sent = tell(ws, words.join(' '), 'cli');
  io.out(
    loopIsRunning(ws)
      ? `queued ${sent.id}: the next iteration's prompt carries it\n`
      : `queued ${sent.id}: no loop is running; the next \`ralph run\` carries it in its first prompt\n`,
  );
  return ExitCode.ok;
}

/** `ralph answer [ID] TEXT`; without arguments, the open questions and approvals. */
export function answerCommand(args: string[], io: CliIO): number {
  const ws = workspaceOf(io);
  if (args.length === 0) {
    const open = openQuestions(ralphPaths(ws).questions);
    if (open.length === 0) io.out('no question or approval is waiting\n');
    for (const q of open)
      io.out(
        `${q.id} ${q.kind}${q.iteration ? ` (iteration ${q.iteration})` : ''}: ${q.text}${q.options ? ` [${q.options.join(' | ')}]` : ''}\n`,
      );
    return ExitCode.ok;
  }
  const [first, ...rest] = args as [string, ...string[]];
  const hasId = rest.length > 0 && QUESTION_ID.test(first);
  const q = answerQuestion(ws, hasId ? first : undefined, (hasId ? rest : args).join(' '), 'cli');
  io.out(`answered ${q.id}: ${q.answer}${whenStopped(ws, q)}\n`);
  return ExitCode.ok;
}

/** `ralph approve [ID]` */
export function approveCommand(id: string | undefined, io: CliIO): number {
  const ws = workspaceOf(io);
  const a = settleApproval(ws, id, { approve: true }, 'cli');
  io.out(`approved ${a.id} (${a.point ?? 'review point'})${whenStopped(ws, a)}\n`);
  return ExitCode.ok;
}

/** `ralph reject [ID] REASON` */
export function rejectCommand(args: string[], io: CliIO): number {
  const [first, ...rest] = args as [string, ...string[]];
  const hasId = rest.length > 0 && QUESTION_ID.test(first);
  const reason = (hasId ? rest : args).join(' ');
  const ws = workspaceOf(io);
  const a = settleApproval(ws, hasId ? first : undefined, { approve: false, reason }, 'cli');
  io.out(`rejected ${a.id} (${a.point ?? 'review point'}): ${reason}${whenStopped(ws, a)}\n`);
  return ExitCode.ok;
}

/** `ralph pause` / `ralph resume` */
export function pauseResumeCommand(kind: 'pause' | 'resume', io: CliIO): number {
  const ws = workspaceOf(io);
  const pid = runningLoop(ws);
  sendCommand(ws, kind, 'cli');
  io.out(
    `asked the loop (pid ${pid}): it ${kind === 'pause' ? 'pauses before the next iteration (the current one finishes)' : 'goes on'}\n`,
  );
  return ExitCode.ok;
}

/** `ralph stop [--now]`: through the inbox, like every other command to the loop. */
export function stopCommand(flags: { now?: boolean | undefined }, io: CliIO): number {
  const ws = workspaceOf(io);
  const pid = runningLoop(ws);
  sendCommand(ws, flags.now ? 'stop_now' : 'stop', 'cli');
  io.out(
    flags.now
      ? `asked the loop (pid ${pid}) to stop now: its agent will be killed and state saved\n`
      : `asked the loop (pid ${pid}) to stop after the current iteration (use --now to kill the agent)\n`,
  );
  return ExitCode.ok;
}

export async function askCommand(
  text: string,
  opts: { options?: string | undefined; timeout?: string | undefined },
  io: CliIO,
): Promise<number> {
  if (text.trim() === '') throw new UsageError('the question is empty');
  const timeoutText = opts.timeout ?? io.env.RALPH_HUMAN_TIMEOUT_SECONDS ?? '0';
  const timeoutS = Number(timeoutText);
  if (!Number.isFinite(timeoutS) || timeoutS < 0)
    throw new UsageError(`--timeout expects seconds (a number ≥ 0), got ${JSON.stringify(timeoutText)}`);
  const options = opts.options
    ?.split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  const ws = workspaceOf(io);
  const iteration = Number(io.env.RALPH_ITERATION);
  // Ctrl-C: the question is withdrawn, nobody answers it for nothing. Inside a loop, the loop
  // decides: it withdraws the question when the agent is gone, unless a stop cut the iteration
  // short; then the re-run iteration's `ralph ask` waits for the same question again.
  const inLoop = io.env.RALPH_RUN_ID !== undefined && io.env.RALPH_RUN_ID !== '';
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const outcome = await ask({
      questionsFile: ralphPaths(ws).questions,
      kind: 'question',
      text: text.trim(),
      options,
      runId: io.env.RALPH_RUN_ID ?? null,
      iteration: Number.isInteger(iteration) && iteration > 0 ? iteration : null,
      timeoutMs: timeoutS * 1000,
      defaultAnswer: io.env.RALPH_HUMAN_DEFAULT_ANSWER ?? humanSchema.parse({}).default_answer,
      signal: controller.signal,
      keepOpen: inLoop,
      rejoin: inLoop,
      onAsked: (q) =>
        io.err(
          `waiting for a human: ralph answer ${q.id} "…"${options ? ` (one of: ${options.join(', ')})` : ''}\n`,
        ),
    });
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
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
