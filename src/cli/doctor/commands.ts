import type { Command } from '@commander-js/extra-typings';
import type { CliIO, SetCode } from '../io.ts';

// Definitions only: the checks and the probe load when the command runs.

const collect = (value: string, previous: string[]) => [...previous, value];

/** `ralph doctor [--probe]`: can Ralph run here? */
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
