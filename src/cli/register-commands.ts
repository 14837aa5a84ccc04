import { type Command, Option } from '@commander-js/extra-typings';
import { INTERACTIVE_BACKENDS } from '../backends/registry.ts';
import { DEFAULT_PLAN_PROMPT } from '../state/paths.ts';
import type { CliIO } from './io.ts';

// Only the command definitions live here: each action loads its module when it runs, so starting
// `ralph` (and `ralph run`) never loads the config schema, YAML or the doctor for a command it does
// not run.

type SetCode = (code: number) => void;

const collect = (value: string, previous: string[]) => [...previous, value];

/** Runs `work` with an AbortSignal that Ctrl-C aborts (a --follow ends cleanly). */
async function untilInterrupted(work: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const controller = new AbortController();
  const onInt = () => controller.abort();
  process.once('SIGINT', onInt);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onInt);
  }
}

export function registerInitCommands(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('init')
    .description('write a workflow preset (ralph.yml, prompt, …) into the current directory')
    .option('--preset <name>', 'preset to write (see `ralph presets`)', 'solo')
    .option('--backend <name>', 'set cli.backend in the written ralph.yml')
    .option('--force', 'overwrite existing files')
    .action(async (opts) => setCode((await import('./init-command.ts')).initCommand(opts, io)));
  program
    .command('presets')
    .description('list the workflow presets')
    .action(async () => setCode((await import('./init-command.ts')).presetsCommand(io)));
}

export function registerPlanCommand(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('plan')
    .description('plan mode: an interactive agent session that writes or refines one spec in specs/')
    .argument('[spec]', 'spec to write or refine: feature-x, feature-x.md or specs/feature-x.md')
    .option('-c, --config <file>', 'config file (default: ralph.yml when present)')
    .option('-P, --prompt-file <file>', `plan prompt (default: ${DEFAULT_PLAN_PROMPT})`)
    .option('-b, --backend <name>', `agent backend (${INTERACTIVE_BACKENDS.join(', ')})`)
    .option('--set <key.path=value>', 'override any config value (repeatable)', collect, [] as string[])
    .option('--dry-run', 'print the agent command; start nothing')
    .argument('[agent-args...]', 'extra arguments for the agent, after --')
    .action(async (spec, agentArgs, opts) => {
      const { planCommand } = await import('./plan-command.ts');
      setCode(await planCommand(spec, opts, agentArgs, io));
    });
}

export function registerEventsCommand(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('events')
    .description("show the run's events (ralph emit, event tags, and what the loop injected)")
    .option('--last <n>', 'only the last N events')
    .option('--topic <topic>', 'only this topic')
    .option('--iteration <n>', 'only events of this iteration')
    .option('--format <format>', 'table or json (a JSON array)', 'table')
    .option('-f, --follow', 'keep printing new events')
    .action(async (opts) => {
      const { eventsCommand } = await import('./events-command.ts');
      setCode(await untilInterrupted((signal) => eventsCommand(opts, io, signal)));
    });
}

export function registerLogsCommand(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('logs')
    .description("print a run's human log (default: the current or last run)")
    .argument('[run]', 'a run id (or a unique prefix), or a log file name such as 2026-11-24_001')
    .option('-f, --follow', 'keep printing as the loop writes (until Ctrl-C or the loop ends)')
    .action(async (run, opts) => {
      const { logsCommand } = await import('./logs-command.ts');
      setCode(await untilInterrupted((signal) => logsCommand(run, opts, io, signal)));
    });
}

export function registerHatsCommand(program: Command, io: CliIO, setCode: SetCode): void {
  const hats = program.command('hats').description('check and draw the hats of ralph.yml');
  hats
    .command('validate')
    .description('check the hats (ambiguous triggers, default_publishes, starting_event) as file:line:col')
    .option('-c, --config <file>', 'config file (default: ralph.yml)')
    .option('--set <key.path=value>', 'override a value (repeatable)', collect, [] as string[])
    .action(async (opts) => setCode((await import('./hats-command.ts')).hatsValidateCommand(opts, io)));
  hats
    .command('graph')
    .description('print the hat topology: triggers, publishes and hand-offs')
    .option('-c, --config <file>', 'config file (default: ralph.yml)')
    .option('--set <key.path=value>', 'override a value (repeatable)', collect, [] as string[])
    .addOption(
      new Option('--format <format>', 'text, or a Mermaid graph')
        .choices(['text', 'mermaid'] as const)
        .default('text'),
    )
    .action(async (opts) => setCode((await import('./hats-command.ts')).hatsGraphCommand(opts, io)));
}

export function registerDoctorCommand(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('doctor')
    .description('check that ralph can run here: disk space, git, specs, the agent CLIs and their logins')
    .option('-c, --config <file>', 'config file (default: ralph.yml when present)')
    .option('--set <key.path=value>', 'override a value (repeatable)', collect, [] as string[])
    .option('--probe', 'also run the configured agent once with a one-word prompt (a real, billed turn)')
    .option('--json', 'machine-readable output')
    .action(async (opts) => setCode(await (await import('./doctor-command.ts')).doctorCommand(opts, io)));
}
