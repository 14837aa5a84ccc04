import type { Command } from '@commander-js/extra-typings';
import { humanSchema } from '../config/schema.ts';
import { ExitCode, RalphError, UsageError } from '../errors.ts';
import { ask } from '../human/ask.ts';
import { openQuestions } from '../human/control-files.ts';
import { answerQuestion, sendCommand, settleApproval, tell } from '../human/human-actions.ts';
import { lockHolderAlive, readLock } from '../state/lock.ts';
import { ralphPaths } from '../state/paths.ts';
import type { CliIO } from './io.ts';

type SetCode = (code: number) => void;

/** The workspace a command steers: the agent's (inside a loop) or the current directory. */
function workspaceOf(io: CliIO): string {
  return io.env.RALPH_WORKSPACE_ROOT ?? io.cwd;
}

/** The running loop's pid, or an error saying there is none (pause/resume/stop need one). */
function runningLoop(workspace: string): number {
  const lock = readLock(ralphPaths(workspace).lock);
  if (!lock || !lockHolderAlive(lock))
    throw new RalphError(
      'not_running',
      `no Ralph loop is running in ${workspace} (to continue a stopped run: \`ralph run --resume\`)`,
    );
  return lock.pid;
}

function loopIsRunning(workspace: string): boolean {
  const lock = readLock(ralphPaths(workspace).lock);
  return lock !== undefined && lockHolderAlive(lock);
}

const QUESTION_ID = /^[qa]-[0-9a-f]{1,8}$/;

/** `ralph tell`, `ask`, `answer`, `approve`, `reject`, `pause`, `resume` (DESIGN.md §5). */
export function registerHumanCommands(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('tell')
    .description("guidance for the loop's next iteration (its prompt carries it once)")
    .argument('<text...>', 'what the agent should know or do')
    .action((words) => {
      const ws = workspaceOf(io);
      const sent = tell(ws, words.join(' '), 'cli');
      io.out(
        loopIsRunning(ws)
          ? `queued ${sent.id}: the next iteration's prompt carries it\n`
          : `queued ${sent.id}: no loop is running; the next \`ralph run\` carries it in its first prompt\n`,
      );
      setCode(ExitCode.ok);
    });

  program
    .command('ask')
    .description('(for agents) ask a human and wait; prints the answer')
    .argument('<question...>', 'the question')
    .option('--options <list>', 'comma-separated answers to choose from')
    .option('--timeout <seconds>', 'give up after this long and print human.default_answer')
    .action(async (words, opts) => setCode(await askCommand(words.join(' '), opts, io)));

  program
    .command('answer')
    .description('answer a question an agent asked (without arguments: list the open ones)')
    .argument('[id-and-text...]', '[ID] TEXT: the id can be left out when one question is open')
    .action((args) => {
      const ws = workspaceOf(io);
      if (args.length === 0) {
        const open = openQuestions(ralphPaths(ws).questions);
        if (open.length === 0) io.out('no question or approval is waiting\n');
        for (const q of open)
          io.out(
            `${q.id} ${q.kind}${q.iteration ? ` (iteration ${q.iteration})` : ''}: ${q.text}${q.options ? ` [${q.options.join(' | ')}]` : ''}\n`,
          );
        return setCode(ExitCode.ok);
      }
      const [first, ...rest] = args as [string, ...string[]];
      const hasId = rest.length > 0 && QUESTION_ID.test(first);
      const q = answerQuestion(ws, hasId ? first : undefined, (hasId ? rest : args).join(' '), 'cli');
      io.out(`answered ${q.id}: ${q.answer}\n`);
      setCode(ExitCode.ok);
    });

  program
    .command('approve')
    .description('approve what the loop waits for at a review point (gates.approval)')
    .argument('[id]', 'the approval (can be left out when one is open)')
    .action((id) => {
      const a = settleApproval(workspaceOf(io), id, { approve: true }, 'cli');
      io.out(`approved ${a.id} (${a.point ?? 'review point'})\n`);
      setCode(ExitCode.ok);
    });

  program
    .command('reject')
    .description('reject at a review point; the reason is the next iteration’s feedback')
    .argument('<id-and-reason...>', '[ID] REASON')
    .action((args) => {
      const [first, ...rest] = args as [string, ...string[]];
      const hasId = rest.length > 0 && QUESTION_ID.test(first);
      const reason = (hasId ? rest : args).join(' ');
      const a = settleApproval(workspaceOf(io), hasId ? first : undefined, { approve: false, reason }, 'cli');
      io.out(`rejected ${a.id} (${a.point ?? 'review point'}): ${reason}\n`);
      setCode(ExitCode.ok);
    });

  for (const [name, kind, said] of [
    ['pause', 'pause', 'pauses before the next iteration (the current one finishes)'],
    ['resume', 'resume', 'goes on'],
  ] as const) {
    program
      .command(name)
      .description(
        name === 'pause' ? 'pause the running loop before its next iteration' : 'resume a paused loop',
      )
      .action(() => {
        const ws = workspaceOf(io);
        const pid = runningLoop(ws);
        sendCommand(ws, kind, 'cli');
        io.out(`asked the loop (pid ${pid}): it ${said}\n`);
        setCode(ExitCode.ok);
      });
  }
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

async function askCommand(
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
  // Ctrl-C, or Ralph ending the iteration: the question is withdrawn, nobody answers it for nothing.
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
      onAsked: (q) =>
        io.err(
          `waiting for a human: ralph answer ${q.id} "…"${options ? ` (one of: ${options.join(', ')})` : ''}\n`,
        ),
    });
    if (outcome.kind === 'abandoned')
      throw new RalphError('interrupted', 'interrupted while waiting; the question was withdrawn', {
        exitCode: ExitCode.interrupted,
      });
    if (outcome.kind === 'timeout') io.err('no answer in time; printing the default answer\n');
    io.out(`${outcome.record.answer ?? ''}\n`);
    return ExitCode.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
