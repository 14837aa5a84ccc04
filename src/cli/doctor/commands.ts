import type { Command } from '@commander-js/extra-typings';
import type { CliIO, SetCode } from '../io.ts';
import { configOption, hatsOption, jsonOption, setOption } from '../options.ts';

// Definitions only: the checks and the probe load when the command runs.

/** `ralph doctor [--probe]`: can Ralph run here? */
export function registerDoctorCommand(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('doctor')
    .description('check that ralph can run here: disk space, git, specs, the agent CLIs and their logins')
    .addOption(configOption())
    .addOption(hatsOption())
    .addOption(setOption())
    .option('--probe', 'also run the configured agent once with a one-word prompt (a real, billed turn)')
    .addOption(jsonOption())
    .action(async (opts) => setCode(await (await import('./doctor-command.ts')).doctorCommand(opts, io)));
}
