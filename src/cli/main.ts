import { Command, CommanderError, Option } from '@commander-js/extra-typings';
import { ConfigError, ExitCode, fileSystemError, RalphError, UsageError } from '../errors.ts';
import { packageVersion } from '../paths-package.ts';
import { emitCommand } from './emit-command.ts';
import type { CliIO } from './io.ts';
import {
  registerDoctorCommand,
  registerEventsCommand,
  registerHatsCommand,
  registerInitCommands,
  registerLogsCommand,
  registerPlanCommand,
} from './register-commands.ts';
import { registerLiveCommands } from './register-live-commands.ts';
import { registerToolsCommand } from './tools-command.ts';

// Every other command's module is imported by its action: starting the CLI loads only commander
// and the definitions, not the config schema, YAML, the engine or the doctor (startup memory).
const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * `ralph` → `ralph run`; `ralph 20 …` and `ralph run 20 …` → `ralph run --max-iterations 20 …`
 * (seed 002, DESIGN §1).
 */
export function normalizeArgv(args: readonly string[]): string[] {
  const [first, ...rest] = args;
  if (first === undefined) return ['run'];
  if (/^\d+$/.test(first)) return ['run', '--max-iterations', first, ...rest];
  if (first === 'run' && rest[0] !== undefined && /^\d+$/.test(rest[0]))
    return ['run', '--max-iterations', rest[0], ...rest.slice(1)];
  if (first.startsWith('-') && !['-h', '--help', '-V', '--version'].includes(first)) return ['run', ...args];
  return [...args];
}

/** The arguments after the first `--`: the only place agent arguments may come from. */
function afterDoubleDash(args: readonly string[]): string[] {
  const at = args.indexOf('--');
  return at === -1 ? [] : args.slice(at + 1);
}

/**
 * An option that takes a value and swallowed the next flag (`--completion-promise --dry-run`): the
 * user forgot the value, and the swallowed flag would silently not apply.
 */
function checkSwallowedFlags(command: Command): void {
  const flags = new Set(command.options.flatMap((o) => [o.long, o.short].filter((f) => f !== undefined)));
  for (const option of command.options) {
    const key = option.attributeName();
    const raw = command.getOptionValue(key) as unknown;
    const values = Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      if (typeof value !== 'string') continue;
      const flag = value.split('=')[0] as string;
      if (flags.has(flag) || flag === '--help' || flag === '-h')
        throw new UsageError(
          `${option.long ?? option.short} expects a value but got the flag ${value}: give ${option.long ?? option.short} a value (quote it if it starts with "-")`,
        );
    }
  }
}

function buildProgram(io: CliIO, setCode: (code: number) => void, agentArgs: string[]): Command {
  const program = new Command('ralph')
    .description(
      'Run an AI coding agent CLI in a loop: a fresh process per iteration, the harness owns limits and done.',
    )
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showSuggestionAfterError()
    .hook('preAction', (_program, action) => checkSwallowedFlags(action as unknown as Command));

  program
    .command('run')
    .description('run the loop (default command)')
    .option('-c, --config <file>', 'config file (default: ralph.yml when present)')
    .option(
      '--preset <name>',
      'run a preset without `ralph init`: its ralph.yml is a layer over yours (see `ralph presets`)',
    )
    .option('-P, --prompt-file <file>', 'prompt file (default: event_loop.prompt_file, then PROMPT.md)')
    .option('-p, --prompt <text>', 'inline prompt text')
    .option('-b, --backend <name>', 'agent backend (custom, fake, …)')
    .option('--max-iterations <n>', 'stop after N iterations (exit 2)')
    .option('--max-runtime <seconds>', 'stop after this much runtime, enforced during an iteration (exit 2)')
    .option('--max-cost <usd>', 'stop when the reported cost reaches this (exit 2)')
    .option('--completion-promise <text>', 'the line that ends the loop (default LOOP_COMPLETE)')
    .option('--set <key.path=value>', 'override any config value (repeatable)', collect, [] as string[])
    .option('--dashboard', 'also serve the web dashboard while the loop runs (its URL is printed once)')
    .option(
      '--worktree [name]',
      'run in a git worktree of its own, on branch ralph/NAME (default name: loop)',
    )
    .option(
      '--parallel <n>',
      'N workers, each on one ready task in a worktree of its own; a merge queue brings finished tasks onto this branch (parallel: N in ralph.yml)',
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
    .option('--dry-run', 'print the resolved config, the first prompt and the agent command; run nothing')
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
    .command('status')
    .description('show the loop state of this workspace (works while a loop runs)')
    .option('--json', 'machine-readable output')
    .option('--worktree <name>', 'the loop of this worktree (ralph run --worktree NAME)')
    .action(async (opts) => {
      const at = opts.worktree
        ? await (await import('./worktrees-command.ts')).worktreeIo(opts.worktree, io)
        : io;
      setCode((await import('./status-command.ts')).statusCommand(opts, at));
    });

  program
    .command('stop')
    .description('ask the running loop to stop at the next iteration boundary')
    .option('--now', 'kill the current agent now (state is saved; resume with --resume)')
    .option('--worktree <name>', 'the loop of this worktree (ralph run --worktree NAME)')
    .action(async (opts) => {
      const at = opts.worktree
        ? await (await import('./worktrees-command.ts')).worktreeIo(opts.worktree, io)
        : io;
      setCode((await import('./human-commands.ts')).stopCommand(opts, at));
    });

  const worktrees = program.command('worktrees').description('the checkouts of ralph run --worktree');
  worktrees
    .command('list')
    .description('each worktree: branch, commits ahead/behind the current branch, its loop')
    .option('--json', 'machine-readable output')
    .action(async (opts) =>
      setCode(await (await import('./worktrees-command.ts')).worktreesListCommand(opts, io)),
    );
  worktrees
    .command('clean')
    .description('remove the worktrees whose branch is merged (never one holding unmerged work)')
    .action(async () => setCode(await (await import('./worktrees-command.ts')).worktreesCleanCommand(io)));

  const runs = program
    .command('runs')
    .description('every run on this machine (the registry $XDG_STATE_HOME/ralph/runs.jsonl), newest first')
    .option('--json', 'machine-readable output')
    .action(async (opts) => setCode((await import('./runs-command.ts')).runsListCommand(opts, io)));
  runs
    .command('prune')
    .description('forget the runs whose workspace is gone (never one whose workspace exists)')
    .action(async () => setCode((await import('./runs-command.ts')).runsPruneCommand(io)));

  registerLiveCommands(program, io, setCode);

  const config = program.command('config').description('inspect and check ralph.yml');
  config
    .command('validate')
    .description(
      'check the config (every problem as file:line:col), then what `ralph run` would fail on here: agent binary, prompt file, gate commands, git',
    )
    .option('-c, --config <file>', 'config file (default: ralph.yml)')
    .option('--set <key.path=value>', 'override a value (repeatable)', collect, [] as string[])
    .option('--preset <name>', 'add the preset as a layer over the project file')
    .option('--schema-only', 'check only the file itself, not this machine and workspace')
    .action(async (opts) =>
      setCode(await (await import('./config-command.ts')).configValidateCommand(opts, io)),
    );
  config
    .command('explain')
    .description('every key, its value and the layer it came from (default, user, project, preset, flags)')
    .argument('[key]', 'a key or section, e.g. event_loop.max_iterations or cli')
    .option('-c, --config <file>', 'config file (default: ralph.yml)')
    .option('--preset <name>', 'add the preset as a layer over the project file')
    .option('--set <key.path=value>', 'override a value (repeatable)', collect, [] as string[])
    .option('--json', 'machine-readable output')
    .action(async (key, opts) =>
      setCode((await import('./config-command.ts')).configExplainCommand(key, opts, io)),
    );
  config
    .command('show')
    .description('print the resolved config with every default')
    .option('-c, --config <file>', 'config file (default: ralph.yml)')
    .option('--preset <name>', 'add the preset as a layer over the project file')
    .option('--set <key.path=value>', 'override a value (repeatable)', collect, [] as string[])
    .action(async (opts) => setCode((await import('./config-command.ts')).configShowCommand(opts, io)));
  config
    .command('schema')
    .description('print the JSON Schema of ralph.yml (for editors; ralph init writes it to .ralph/)')
    .action(async () => setCode((await import('./config-command.ts')).configSchemaCommand(io)));

  program
    .command('emit')
    .description('append an event to the current events file (used by agents inside a loop)')
    .argument('<topic>')
    .argument('[payload]')
    .option('--json', 'the payload is JSON')
    .action((topic, payload, opts) => {
      emitCommand(
        [topic, ...(payload === undefined ? [] : [payload]), ...(opts.json ? ['--json'] : [])],
        io.cwd,
        io.env,
      );
      setCode(ExitCode.ok);
    });

  registerInitCommands(program, io, setCode);
  registerPlanCommand(program, io, setCode);
  registerEventsCommand(program, io, setCode);
  registerLogsCommand(program, io, setCode);
  registerHatsCommand(program, io, setCode);
  registerToolsCommand(program, io, setCode);
  registerDoctorCommand(program, io, setCode);

  program
    .command('completion')
    .description('print a shell completion script: eval "$(ralph completion bash)" (bash, zsh, fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell) =>
      setCode((await import('./completion-command.ts')).completionCommand(shell, program as never, io)),
    );

  program
    .command('demo')
    .description('build an example workspace in a temp dir and run a real loop with the fake agent')
    .option('--dir <path>', 'build the workspace here instead of a temp dir (must be new or empty)')
    .option('--force', 'write the demo into a non-empty --dir, overwriting its files')
    .option('-q, --quiet', 'print only the end summary')
    .action(async (opts) => setCode(await (await import('./demo-command.ts')).demoCommand(opts, io)));

  return program;
}

/** Runs the CLI in-process and returns the exit code; only `bin/ralph` exits the process. */
export async function runCli(args: readonly string[], io: CliIO): Promise<number> {
  // Fast path: `ralph emit` runs inside agent tool calls, possibly many times per iteration.
  if (args[0] === 'emit' && !args.includes('-h') && !args.includes('--help')) {
    try {
      emitCommand(args.slice(1), io.cwd, io.env);
      return ExitCode.ok;
    } catch (error) {
      return reportError(error, io);
    }
  }
  let code: number = ExitCode.ok;
  const argv = normalizeArgv(args);
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    afterDoubleDash(argv),
  );
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successful exits; parse errors were already printed by commander.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.failure;
    }
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIO): number {
  if (error instanceof ConfigError) {
    io.err(
      `ralph: invalid config:\n${error.issues.length > 0 ? error.message.replace(/^/gm, '  ') : error.message}\n`,
    );
    return error.exitCode;
  }
  // Before other RalphErrors: a file-system failure that does not say how to go on yet gets it here.
  const fsError = fileSystemError(error, { next: 'then run the command again' });
  if (fsError) {
    io.err(`ralph: ${fsError.message}\n`);
    return fsError.exitCode;
  }
  if (error instanceof RalphError) {
    io.err(`ralph: ${error.message}\n`);
    return error.exitCode;
  }
  io.err(`ralph: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
  return ExitCode.failure;
}
