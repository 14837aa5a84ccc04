import type { Command } from '@commander-js/extra-typings';
import type { CliIO } from './io.ts';
import { registerFleetCommand } from './register-fleet-command.ts';

// Definitions only, like register-commands.ts: each action loads its module when it runs.

type SetCode = (code: number) => void;

/** The human in the loop (DESIGN.md §5), the dashboard and `ralph explain`. */
export function registerLiveCommands(program: Command, io: CliIO, setCode: SetCode): void {
  const human = () => import('./human-commands.ts');
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
    .option('--timeout <seconds>', 'give up after this long and print human.default_answer')
    .action(async (words, opts) => setCode(await (await human()).askCommand(words.join(' '), opts, io)));
  program
    .command('answer')
    .description('answer a question an agent asked (without arguments: list the open ones)')
    .argument('[id-and-text...]', '[ID] TEXT: the id can be left out when one question is open')
    .action(async (args) => setCode((await human()).answerCommand(args, io)));
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
  program
    .command('dashboard')
    .description('a local web dashboard of every run on this machine (127.0.0.1, a random token per start)')
    .option('--port <n>', 'port to listen on (default: a free one)')
    .option('--host <address>', 'address to bind (default 127.0.0.1; others need --unsafe-expose)')
    .option('--unsafe-expose', 'allow binding off loopback (prints a warning)')
    .option('--open', 'open it in the browser')
    .action(async (flags) =>
      setCode(await (await import('./dashboard-command.ts')).dashboardCommand(flags, io)),
    );
  program
    .command('explain')
    .description(
      'why the loop did what it did, iteration by iteration (route, completion, gates, limits, stop)',
    )
    .argument('[run]', 'a run id or a unique prefix (default: the current or last run)')
    .option('--iteration <n>', 'only this iteration')
    .option('--json', 'the records’ decision fields as JSON lines')
    .action(async (run, opts) =>
      setCode((await import('./explain-command.ts')).explainCommand(run, opts, io)),
    );
  registerFleetCommand(program, io, setCode);
}
