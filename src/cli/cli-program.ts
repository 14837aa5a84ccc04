import { isAbsolute, resolve } from 'node:path';
import { Command, CommanderError } from '@commander-js/extra-typings';
import { ConfigError, ExitCode, fileSystemError, RalphError } from '../errors.ts';
import { packageVersion } from '../paths-package.ts';
import { projectRootOf } from '../state/paths.ts';
import { registerAgentToolCommands } from './agent-tools/commands.ts';
import { emitCommand } from './agent-tools/emit-command.ts';
import { subcommand } from './command-tree.ts';
import { registerConfigCommands } from './config/commands.ts';
import { registerDashboardCommand } from './dashboard/commands.ts';
import { registerDoctorCommand } from './doctor/commands.ts';
import { registerFleetCommands } from './fleet/commands.ts';
import { registerHumanCommands } from './human/commands.ts';
import { registerInspectCommands } from './inspect/commands.ts';
import type { CliIO } from './io.ts';
import { swallowedFlagError } from './options.ts';
import { registerRescueCommands } from './rescue/commands.ts';
import { registerRunCommands } from './run/commands.ts';

// Each command group (run/, inspect/, human/, …) defines its commands in its commands.ts, and every
// command's module is imported by its action: starting the CLI loads only commander and the
// definitions, not the config schema, YAML, the engine or the doctor (startup memory).
/**
 * `ralph` → `ralph run`; `ralph 20 …` and `ralph run 20 …` → `ralph run --max-iterations 20 …`
 * (seed 002, DESIGN §1); `ralph -v` alone → `ralph --version`.
 */
export function normalizeArgv(args: readonly string[]): string[] {
  const [first, ...rest] = args;
  if (first === undefined) return ['run'];
  if (/^\d+$/.test(first)) return ['run', '--max-iterations', first, ...rest];
  if (first === 'run' && rest[0] !== undefined && /^\d+$/.test(rest[0]))
    return ['run', '--max-iterations', rest[0], ...rest.slice(1)];
  // `ralph -v` alone asks for the version, as with node, npm and most CLIs, not for a verbose run.
  if (first === '-v' && rest.length === 0) return ['--version'];
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
        throw swallowedFlagError(option.long ?? option.short ?? option.flags, value);
    }
  }
}

/**
 * The `ralph` program. With `word` (the first word of the command line), a command of the run
 * group (`ralph run`, the hot path) gets only that group defined: commander builds every option of
 * every command it is given (several ms), and nothing a run group command does reads the others.
 */
function buildProgram(
  io: CliIO,
  setCode: (code: number) => void,
  agentArgs: string[],
  word?: string,
): Command {
  const program = new Command('ralph')
    .description(
      'Run an AI coding agent CLI in a loop: a fresh process per iteration, the harness owns limits and done.',
    )
    .version(packageVersion())
    .option(
      '--debug',
      'trace what Ralph does to stderr: config read, processes, HTTP calls, locks, writes (also RALPH_DEBUG=1)',
    )
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showSuggestionAfterError()
    .hook('preAction', (_program, action) => checkSwallowedFlags(action as unknown as Command));

  // The order of the groups is the order of `ralph --help`.
  registerRunCommands(program, io, setCode, agentArgs);
  if (word !== undefined && subcommand(program, word)) return program;
  registerInspectCommands(program, io, setCode);
  registerHumanCommands(program, io, setCode);
  registerRescueCommands(program, io, setCode);
  registerDashboardCommand(program, io, setCode);
  registerFleetCommands(program, io, setCode);
  registerDoctorCommand(program, io, setCode);
  registerConfigCommands(program, io, setCode);
  registerAgentToolCommands(program, io, setCode);
  return program;
}

/** A CliIO for a program that is only read, never run: its commands have nothing to print to. */
const DEFINITIONS_ONLY: CliIO = { out: () => {}, err: () => {}, cwd: '.', env: {}, color: false };

/**
 * The `ralph` program with every command defined and nothing run (no action, no module of a
 * command loaded): what the CLI reference (docs/reference/cli.md) and its checks read.
 */
export function cliProgram(): Command {
  return buildProgram(DEFINITIONS_ONLY, () => {}, []);
}

/** Commands that do not act on a project's workspace: they never look for one above the current directory. */
const NO_PROJECT = new Set([
  'init',
  'new',
  'demo',
  'completion',
  'dashboard',
  'runs',
  'fleet',
  'help',
  'parallel-worker',
]);

/**
 * Run from a subdirectory of a project (no ralph.yml or .ralph/ here, one above, up to the
 * repository's top), a command acts on that project, as git and npm do: the workspace is the
 * project's directory, a relative `-P` file stays the one the user meant, and stderr says so once.
 * Not for `-c` (the user named the config) nor inside an agent (RALPH_WORKSPACE_ROOT says where).
 */
function inProject(argv: string[], io: CliIO): { argv: string[]; io: CliIO } {
  const [word = ''] = argv;
  const own = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  if (NO_PROJECT.has(word) || word.startsWith('-') || io.env.RALPH_WORKSPACE_ROOT) return { argv, io };
  if (own.some((a) => a === '-c' || a === '--config' || a.startsWith('--config='))) return { argv, io };
  const root = projectRootOf(io.cwd);
  if (root === undefined || root === resolve(io.cwd)) return { argv, io };
  io.err(`ralph: in the project at ${root} (found above ${io.cwd})\n`);
  // A relative -P or -H file is the one next to the user, not in the project's directory.
  const file = (i: number) =>
    own[i - 1] === '-P' ||
    own[i - 1] === '--prompt-file' ||
    ((own[i - 1] === '-H' || own[i - 1] === '--hats') && !own[i]!.startsWith('builtin:'));
  return {
    argv: argv.map((a, i) => (i < own.length && file(i) && !isAbsolute(a) ? resolve(io.cwd, a) : a)),
    io: { ...io, cwd: root },
  };
}

/**
 * `--debug` anywhere before `--` (a global option: `ralph --debug run`, `ralph run --debug`) or
 * RALPH_DEBUG set to anything but empty, `0` or `false`: the arguments without the flag, and whether to trace.
 */
export function debugRequest(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { args: string[]; on: boolean } {
  const end = args.includes('--') ? args.indexOf('--') : args.length;
  const own = args.slice(0, end);
  const flag = own.includes('--debug');
  const value = env.RALPH_DEBUG?.trim().toLowerCase();
  const fromEnv = value !== undefined && value !== '' && value !== '0' && value !== 'false';
  return { args: [...own.filter((a) => a !== '--debug'), ...args.slice(end)], on: flag || fromEnv };
}

/** Runs the CLI in-process and returns the exit code; only `bin/ralph` exits the process. */
export async function runCli(args: readonly string[], io: CliIO): Promise<number> {
  const debug = debugRequest(args, io.env);
  if (!debug.on) return runCommandLine(args, io);
  // Loaded only when asked for: an ordinary start reads none of the trace's formatting.
  const { startDebugTrace } = await import('./debug-lines.ts');
  const stop = startDebugTrace(io);
  try {
    return await runCommandLine(debug.args, { ...io, debug: true });
  } finally {
    stop();
  }
}

async function runCommandLine(args: readonly string[], io: CliIO): Promise<number> {
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
  const found = inProject(normalizeArgv(args), io);
  const argv = found.argv;
  io = found.io;
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    afterDoubleDash(argv),
    argv[0],
  );
  // The examples are text for people: loaded only when help is asked for, never on a run's start.
  if (asksForHelp(argv)) (await import('./example-help.ts')).addExamplesToHelp(program);
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

/** `ralph help …`, or `-h`/`--help` before any `--` (after it, the words are the agent's). */
function asksForHelp(argv: readonly string[]): boolean {
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return own[0] === 'help' || own.includes('-h') || own.includes('--help');
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
  io.err(`${unexpectedErrorLine(error)}\n`);
  return ExitCode.failure;
}

/**
 * Anything not a RalphError is a bug in Ralph: one line with its message (the first line of it),
 * never a stack trace, which says nothing to a user and can print paths and values.
 */
export function unexpectedErrorLine(error: unknown): string {
  const e = error as { name?: unknown; message?: unknown } | null;
  const text =
    e && typeof e.message === 'string' ? `${String(e.name ?? 'Error')}: ${e.message}` : String(error);
  return `ralph: unexpected error: ${text.split('\n')[0]} — this is a bug in Ralph: please report it with the command you ran`;
}
