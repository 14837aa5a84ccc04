import type { Command } from '@commander-js/extra-typings';
import { worktreeOrHere } from '../inspect/commands.ts';
import type { CliIO, SetCode } from '../io.ts';
import { jsonOption, NON_NEGATIVE, numberOption } from '../options.ts';

// Definitions only: the control functions load when a command runs.

/** The human in the loop (DESIGN.md §5): tell, stop, pause, resume, answer, approve, reject, ask. */
export function registerHumanCommands(program: Command, io: CliIO, setCode: SetCode): void {
  const human = () => import('./human-commands.ts');
  program
    .command('stop')
    .description('ask the running loop to stop at the next iteration boundary')
    .option('--now', 'kill the current agent now (state is saved; resume with --resume)')
    .option('--worktree <name>', 'the loop of this worktree (ralph run --worktree NAME)')
    .action(async (opts) => {
      const at = await worktreeOrHere(opts.worktree, io);
      setCode((await human()).stopCommand(opts, at));
    });
  program
    .command('tell')
    .description("guidance for the loop's next iteration (its prompt carries it once)")
    .argument('<text...>', 'what the agent should know or do')
    .action(async (words) => setCode((await human()).tellCommand(words, io)));
  program
    .command('ask')
    .description('(for agents) ask a human and wait; prints the answer')
    .argument('<question...>', 'the question')
    .option('--options <list>', 'comma-separated answers to choose from')
    .addOption(
      numberOption(
        '--timeout <seconds>',
        'give up after this long and print human.default_answer',
        NON_NEGATIVE,
      ),
    )
    .action(async (words, opts) => setCode(await (await human()).askCommand(words.join(' '), opts, io)));
  program
    .command('answer')
    .description('answer a question an agent asked (without arguments: list the open ones)')
    .argument('[id-and-text...]', '[ID] TEXT: the id can be left out when one question is open')
    .addOption(jsonOption('the open questions (or the answer given) as JSON'))
    .action(async (args, opts) => setCode((await human()).answerCommand(args, io, opts)));
  program
    .command('approve')
    .description('approve what the loop waits for at a review point (gates.approval)')
    .argument('[id]', 'the approval (can be left out when one is open)')
    .action(async (id) => setCode((await human()).approveCommand(id, io)));
  program
    .command('reject')
    .description('reject at a review point; the reason is the next iteration’s feedback')
    .argument('<id-and-reason...>', '[ID] REASON')
    .action(async (args) => setCode((await human()).rejectCommand(args, io)));
  program
    .command('pause')
    .description('pause the running loop before its next iteration')
    .action(async () => setCode((await human()).pauseResumeCommand('pause', io)));
  program
    .command('resume')
    .description('resume a paused loop')
    .action(async () => setCode((await human()).pauseResumeCommand('resume', io)));
}
