import { type Command, Option } from '@commander-js/extra-typings';
import type { CliIO, SetCode } from '../io.ts';
import { numberOption, PORT } from '../options.ts';

// Definitions only: hono and the dashboard's modules load when the command runs.

/** `ralph dashboard`: every run on this machine in a local web page. */
export function registerDashboardCommand(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('dashboard')
    .description('a local web dashboard of every run on this machine (127.0.0.1, a random token per start)')
    .addOption(numberOption('--port <n>', 'port to listen on (default: a free one)', PORT))
    .option('--host <address>', 'address to bind (default 127.0.0.1; others need --unsafe-expose)')
    .option('--unsafe-expose', 'allow binding off loopback (prints a warning)')
    .addOption(
      new Option(
        '--allow-host <name>',
        'also answer to this name in the Host header, e.g. a DNS name of this machine (repeatable; any other Host gets 421)',
      )
        .argParser((value: string, previous: string[]) => [...previous, value])
        .default([] as string[]),
    )
    .option(
      '--token-file <path>',
      'keep the token in this file instead of a new one per start (created with a random token, mode 0600, when missing)',
    )
    .option('--open', 'open it in the browser')
    .action(async (flags) =>
      setCode(await (await import('./dashboard-command.ts')).dashboardCommand(flags, io)),
    );
}
