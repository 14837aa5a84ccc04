import { type Command, Option } from '@commander-js/extra-typings';
import type { CliIO, SetCode } from '../io.ts';
import { configOption, hatsOption, jsonOption, presetOption, setOption } from '../options.ts';

// Definitions only: the config schema, YAML and the presets load when a command runs.

/** `ralph config …`: check and explain ralph.yml. */
function registerConfigCommand(program: Command, io: CliIO, setCode: SetCode): void {
  const config = program.command('config').description('inspect and check ralph.yml');
  config
    .command('validate')
    .description(
      'check the config (every problem as file:line:col), then what `ralph run` would fail on here: agent binary, prompt file, gate commands, git',
    )
    .addOption(configOption())
    .addOption(setOption())
    .addOption(presetOption())
    .addOption(hatsOption())
    .option('--schema-only', 'check only the file itself, not this machine and workspace')
    .option('--strict', 'warnings about the file (ralph-orchestrator keys Ralph ignores) are errors')
    .addOption(jsonOption('the verdict, every problem, note and warning as one JSON object'))
    .action(async (opts) =>
      setCode(await (await import('./config-command.ts')).configValidateCommand(opts, io)),
    );
  config
    .command('explain')
    .description(
      'every key, its value (secrets as ***) and the layer it came from (default, user, project, preset, flags)',
    )
    .argument('[key]', 'a key or section, e.g. event_loop.max_iterations or cli')
    .addOption(configOption())
    .addOption(presetOption())
    .addOption(hatsOption())
    .addOption(setOption())
    .addOption(jsonOption())
    .action(async (key, opts) =>
      setCode((await import('./config-command.ts')).configExplainCommand(key, opts, io)),
    );
  config
    .command('show')
    .description(
      'print the resolved config with every default, secret values as *** (from where they were set)',
    )
    .addOption(configOption())
    .addOption(presetOption())
    .addOption(hatsOption())
    .addOption(setOption())
    .action(async (opts) => setCode((await import('./config-command.ts')).configShowCommand(opts, io)));
  config
    .command('schema')
    .description('print the JSON Schema of ralph.yml (for editors; ralph init writes it to .ralph/)')
    .action(async () => setCode((await import('./config-command.ts')).configSchemaCommand(io)));
}

/** `ralph init`, `ralph new` and `ralph presets`: write a workflow preset or a starter project, list presets. */
function registerInitCommands(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('init')
    .description('write a workflow preset (ralph.yml, prompt, …) into the current directory')
    .addOption(presetOption('preset to write (see `ralph presets`)').default('solo'))
    .option('--backend <name>', 'set cli.backend in the written ralph.yml')
    .option('--force', 'overwrite existing files')
    .option(
      '--from <kind>',
      "write the ralph.yml equivalent to another loop's project here: snarktank, ralph-tui, frankbria or ralph-orchestrator (docs/guide/migrating.md)",
    )
    .action(async (opts) => setCode(await (await import('./init-command.ts')).initCommand(opts, io)));
  program
    .command('new')
    .description(
      'scaffold a starter project in a new directory: its files, ralph.yml with the tests as a gate, PROMPT.md, a git repository with a first commit; then run its tests once',
    )
    .argument('[template]', 'ts-lib or py-pkg (see --list)')
    .argument('[dir]', 'the directory to create; it must be empty or missing unless --force')
    .option('--list', 'list the templates, one line each')
    .option('--force', 'write into a non-empty directory; files that exist are kept, never overwritten')
    .option('--no-check', "do not run the new project's tests at the end")
    .option('--backend <name>', 'set cli.backend in the written ralph.yml')
    .action(async (template, dir, opts) =>
      setCode(await (await import('./new-command.ts')).newCommand(template, dir, opts, io)),
    );
  program
    .command('presets')
    .description('list the workflow presets')
    .addOption(jsonOption('one JSON array of {name, description}'))
    .action(async (opts) => setCode((await import('./init-command.ts')).presetsCommand(io, opts)));
}

/** `ralph hats validate|graph`. */
export function registerHatsCommand(program: Command, io: CliIO, setCode: SetCode): void {
  const hats = program.command('hats').description('check and draw the hats of ralph.yml');
  hats
    .command('validate')
    .description('check the hats (ambiguous triggers, default_publishes, starting_event) as file:line:col')
    .addOption(configOption())
    .addOption(hatsOption())
    .addOption(setOption())
    .addOption(jsonOption('one JSON object: valid, file, hats_source, hats (or errors with file, line, col)'))
    .action(async (opts) => setCode((await import('./hats-command.ts')).hatsValidateCommand(opts, io)));
  hats
    .command('graph')
    .description('print the hat topology: triggers, publishes and hand-offs')
    .addOption(configOption())
    .addOption(hatsOption())
    .addOption(setOption())
    .addOption(
      new Option('--format <format>', 'text, or a Mermaid graph')
        .choices(['text', 'mermaid'] as const)
        .default('text'),
    )
    .action(async (opts) => setCode((await import('./hats-command.ts')).hatsGraphCommand(opts, io)));
}

/** `ralph hooks validate`: ralph-orchestrator's lifecycle hooks, checked without running them. */
function registerHooksCommand(program: Command, io: CliIO, setCode: SetCode): void {
  const hooks = program.command('hooks').description('check the lifecycle hooks of ralph.yml');
  hooks
    .command('validate')
    .description(
      'check hooks: (schema, commands that exist and are executable, cwds, unique names, timeouts) as file:line:col; exit 1 on a problem',
    )
    .addOption(configOption())
    .addOption(hatsOption())
    .addOption(setOption())
    .addOption(jsonOption())
    .action(async (opts) => setCode((await import('./hooks-command.ts')).hooksValidateCommand(opts, io)));
}

/** Setting Ralph up: config, init, presets, hats, hooks, shell completion. */
export function registerConfigCommands(program: Command, io: CliIO, setCode: SetCode): void {
  registerConfigCommand(program, io, setCode);
  registerInitCommands(program, io, setCode);
  registerHatsCommand(program, io, setCode);
  registerHooksCommand(program, io, setCode);
  program
    .command('completion')
    .description('print a shell completion script: eval "$(ralph completion bash)" (bash, zsh, fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell) =>
      setCode((await import('./completion-command.ts')).completionCommand(shell, program as never, io)),
    );
}
