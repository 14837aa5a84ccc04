import { type Command, Option } from '@commander-js/extra-typings';
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
import { untilInterrupted } from '../signals.ts';

// Definitions only: each action loads its module when it runs, so starting `ralph` (and `ralph run`)
// never loads the config schema, YAML or the status read model for a command it does not run.

/** The io of the loop `--worktree NAME` names, else `io` itself (`ralph status`, `ralph stop`). */
export async function worktreeOrHere(name: string | undefined, io: CliIO): Promise<CliIO> {
  return name ? (await import('./worktrees-command.ts')).worktreeIo(name, io) : io;
}

/** What ran and what runs: status, events, logs, explain, runs, stats, estimate, worktrees. */
export function registerInspectCommands(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('status')
    .description('show the loop state of this workspace (works while a loop runs)')
    .addOption(jsonOption())
    .option('--worktree <name>', 'the loop of this worktree (ralph run --worktree NAME)')
    .action(async (opts) => {
      const at = await worktreeOrHere(opts.worktree, io);
      setCode((await import('./status-command.ts')).statusCommand(opts, at));
    });

  program
    .command('events')
    .description("show the run's events (ralph emit, event tags, and what the loop injected)")
    .addOption(numberOption('--last <n>', 'only the last N events', COUNT))
    .option('--topic <topic>', 'only this topic')
    .addOption(numberOption('--iteration <n>', 'only events of this iteration', COUNT))
    .option('--format <format>', 'table or json (a JSON array)', 'table')
    .addOption(new Option('--json', 'same as --format json').implies({ format: 'json' }))
    .option('-f, --follow', 'keep printing new events')
    .action(async (opts) => {
      const { eventsCommand } = await import('./events-command.ts');
      setCode(await untilInterrupted((signal) => eventsCommand(opts, io, signal)));
    });

  program
    .command('logs')
    .description("print a run's human log (default: the current or last run)")
    .argument('[run]', 'a run id (or a unique prefix), or a log file name such as 2026-11-24_001')
    .option('-f, --follow', 'keep printing as the loop writes (until Ctrl-C or the loop ends)')
    .action(async (run, opts) => {
      const { logsCommand } = await import('./logs-command.ts');
      setCode(await untilInterrupted((signal) => logsCommand(run, opts, io, signal)));
    });

  program
    .command('explain')
    .description(
      'why the loop did what it did, iteration by iteration (route, completion, gates, limits, stop)',
    )
    .argument('[run]', 'a run id or a unique prefix (default: the current or last run)')
    .addOption(numberOption('--iteration <n>', 'only this iteration', COUNT))
    .addOption(jsonOption('the records’ decision fields as JSON lines'))
    .action(async (run, opts) =>
      setCode((await import('./explain-command.ts')).explainCommand(run, opts, io)),
    );

  const runs = program
    .command('runs')
    .description('every run on this machine (the registry $XDG_STATE_HOME/ralph/runs.jsonl), newest first')
    .addOption(jsonOption())
    .action(async (opts) => setCode((await import('./runs-command.ts')).runsListCommand(opts, io)));
  runs
    .command('prune')
    .description('forget the runs whose workspace is gone (never one whose workspace exists)')
    .action(async () => setCode((await import('./runs-command.ts')).runsPruneCommand(io)));

  program
    .command('stats')
    .description(
      'what the runs of this workspace took: runs, iterations, time, cost, success rates per hat, backend and model, stop reasons, coverage, and the attempts of the metric loop',
    )
    .option('--since <span>', 'only iterations since then: 90m, 12h, 7d, 2w or a date (2026-11-01)')
    .option('--all', 'every workspace in the registry ($XDG_STATE_HOME/ralph/runs.jsonl), not only this one')
    .addOption(jsonOption('the statistics as one JSON object (docs/operations/stats.md#json-shapes)'))
    .action(async (opts) => setCode((await import('./stats-command.ts')).statsCommand(opts, io)));

  program
    .command('estimate')
    .description(
      'predict iterations, tokens, cost and time of the run `ralph run` would start, and which limit would stop it',
    )
    .addOption(configOption())
    .addOption(presetOption())
    .addOption(hatsOption())
    .option('-P, --prompt-file <file>', 'prompt file (default: event_loop.prompt_file, then PROMPT.md)')
    .option('-p, --prompt <text>', 'inline prompt text')
    .option('-b, --backend <name>', 'agent backend (custom, fake, …)')
    .addOption(numberOption('--max-iterations <n>', 'the iteration limit to compare with', COUNT))
    .addOption(numberOption('--max-runtime <seconds>', 'the runtime limit to compare with', POSITIVE))
    .addOption(numberOption('--max-cost <usd>', 'the cost limit to compare with', POSITIVE))
    .addOption(setOption())
    .addOption(jsonOption('the estimate as one JSON object (docs/operations/stats.md#json-shapes)'))
    .action(async (opts) => setCode(await (await import('./estimate-command.ts')).estimateCommand(opts, io)));

  const worktrees = program.command('worktrees').description('the checkouts of ralph run --worktree');
  worktrees
    .command('list')
    .description('each worktree: branch, commits ahead/behind the current branch, its loop')
    .addOption(jsonOption())
    .action(async (opts) =>
      setCode(await (await import('./worktrees-command.ts')).worktreesListCommand(opts, io)),
    );
  worktrees
    .command('clean')
    .description('remove the worktrees whose branch is merged (never one holding unmerged work)')
    .action(async () => setCode(await (await import('./worktrees-command.ts')).worktreesCleanCommand(io)));
}
