import { type Command, Option } from '@commander-js/extra-typings';
import { INTERACTIVE_BACKEND_NAMES } from '../../config/schema/backend-names.ts';
import { UsageError } from '../../errors.ts';
import { DEFAULT_PLAN_PROMPT } from '../../state/paths.ts';
import type { CliIO, SetCode } from '../io.ts';
import {
  COUNT,
  configOption,
  hatsOption,
  jsonOption,
  numberOption,
  POSITIVE,
  presetOption,
  setOption,
} from '../options.ts';

// Definitions only: each action loads its module when it runs, so starting `ralph run` loads the
// engine but not the doctor, the dashboard or the fleet.

/** `ralph run` (with --parallel, --worktree, --dry-run), its internal worker, `plan` and `demo`. */
export function registerRunCommands(
  program: Command,
  io: CliIO,
  setCode: SetCode,
  agentArgs: string[],
): void {
  program
    .command('run')
    .description('run the loop (default command)')
    .addOption(configOption())
    .addOption(presetOption())
    .addOption(hatsOption())
    .option('-P, --prompt-file <file>', 'prompt file (default: event_loop.prompt_file, then PROMPT.md)')
    .option('-p, --prompt <text>', 'inline prompt text')
    .option('-b, --backend <name>', 'agent backend (custom, fake, …)')
    .addOption(numberOption('--max-iterations <n>', 'stop after N iterations (exit 2)', COUNT))
    .addOption(
      numberOption(
        '--max-runtime <seconds>',
        'stop after this much runtime, enforced during an iteration (exit 2)',
        POSITIVE,
      ),
    )
    .addOption(
      numberOption('--max-cost <usd>', 'stop when the reported cost reaches this (exit 2)', POSITIVE),
    )
    .option('--completion-promise <text>', 'the line that ends the loop (default LOOP_COMPLETE)')
    .addOption(
      new Option(
        '--sandbox <mode>',
        "the sandbox every agent runs in: off, on (bubblewrap / sandbox-exec) or native (the backend's own); over `sandbox:` in ralph.yml",
      ).choices(['off', 'on', 'native'] as const),
    )
    .option('--no-sandbox', 'run the agents unsandboxed (= --sandbox off)')
    .addOption(setOption())
    .option('--dashboard', 'also serve the web dashboard while the loop runs (its URL is printed once)')
    .option(
      '--worktree [name]',
      'run in a git worktree of its own, on branch ralph/NAME (default name: loop)',
    )
    .addOption(
      numberOption(
        '--parallel <n>',
        'N workers, each on one ready task in a worktree of its own; a merge queue brings finished tasks onto this branch (parallel: N in ralph.yml)',
        { integer: true, min: 1, max: 64, noun: 'a number of workers' },
      ),
    )
    .option(
      '--no-tui',
      'plain lines instead of the terminal UI (the TUI is on by default on a terminal; -q, no TTY, TERM=dumb or a CI environment also turn it off)',
    )
    .addOption(new Option('-v, --verbose', 'stream the agent output').conflicts('quiet'))
    .addOption(new Option('-q, --quiet', 'print only the end summary'))
    .addOption(
      new Option('--resume', 'continue the unfinished run (re-runs the interrupted iteration)').conflicts(
        'fresh',
      ),
    )
    .option('--fresh', 'discard the unfinished run and start over')
    .option(
      '--dry-run',
      'print the resolved config (secrets as ***), the first prompt and the agent command; run nothing',
    )
    .option(
      '--estimate',
      'print the estimate of this run (iterations, tokens, cost, time, which limit would stop it) and start nothing',
    )
    .addOption(jsonOption('with --dry-run or --estimate: one JSON object (snake_case keys)'))
    .argument('[agent-args...]', 'extra arguments for the agent, after --')
    .action(async (operands, opts) => {
      // Anything before `--` that is not an option is a mistake (`ralph run fix the bug`), not agent input.
      const stray = operands.slice(0, operands.length - agentArgs.length);
      if (stray.length > 0)
        throw new UsageError(
          `unexpected argument ${JSON.stringify(stray[0])}: arguments for the agent go after --, e.g. ralph run -- ${stray.join(' ')}; a prompt goes in -p "TEXT" or PROMPT.md`,
        );
      const { runCommand } = await import('./run-command.ts');
      setCode(await runCommand(opts, agentArgs, io));
    });

  program
    .command('parallel-worker', { hidden: true })
    .description('internal: one worker of `ralph run --parallel` (started by the coordinator)')
    .argument('<spec>', 'the worker spec file the coordinator wrote')
    .action(async (spec) => {
      const { parallelWorkerCommand } = await import('./parallel-worker-command.ts');
      setCode(await parallelWorkerCommand(spec, io));
    });

  program
    .command('plan')
    .description('plan mode: an interactive agent session that writes or refines one spec in specs/')
    .argument('[spec]', 'spec to write or refine: feature-x, feature-x.md or specs/feature-x.md')
    .addOption(configOption())
    .option('-P, --prompt-file <file>', `plan prompt (default: ${DEFAULT_PLAN_PROMPT})`)
    .option('-b, --backend <name>', `agent backend (${INTERACTIVE_BACKEND_NAMES.join(', ')})`)
    .addOption(setOption())
    .option('--dry-run', 'print the agent command; start nothing')
    .argument('[agent-args...]', 'extra arguments for the agent, after --')
    .action(async (spec, planArgs, opts) => {
      const { planCommand } = await import('./plan-command.ts');
      setCode(await planCommand(spec, opts, planArgs, io));
    });

  program
    .command('demo')
    .description('build an example workspace in a temp dir and run a real loop with the fake agent')
    .option('--dir <path>', 'build the workspace here instead of a temp dir (must be new or empty)')
    .option('--force', 'write the demo into a non-empty --dir, overwriting its files')
    .option('-q, --quiet', 'print only the end summary')
    .action(async (opts) => setCode(await (await import('./demo-command.ts')).demoCommand(opts, io)));
}
