import type { Command } from '@commander-js/extra-typings';
import type { CliIO, SetCode } from '../io.ts';
import { jsonOption } from '../options.ts';

const WHICH =
  'the iteration number (of the last run here), <run>/<iteration>, or the full ref (default: the newest)';

/** `ralph rescue list | show | apply`: changes a rollback set aside (gates.on_failure: rollback, rules). */
export function registerRescueCommands(program: Command, io: CliIO, setCode: SetCode): void {
  const rescue = program
    .command('rescue')
    .description('changes a rollback set aside (refs/ralph/rescue/<run>/<iteration>): list, show, apply');
  rescue
    .command('list')
    .description('every rescued change of this repository, newest first')
    .addOption(jsonOption())
    .action(async (opts) => setCode(await (await import('./rescue-command.ts')).rescueListCommand(opts, io)));
  rescue
    .command('show')
    .description('the rescued change: why it was rolled back, its files and diff')
    .argument('[which]', WHICH)
    .action(async (which) =>
      setCode(await (await import('./rescue-command.ts')).rescueShowCommand(which, io)),
    );
  rescue
    .command('apply')
    .description('bring a rescued change back into the work tree (staged, not committed); needs a clean tree')
    .argument('[which]', WHICH)
    .action(async (which) =>
      setCode(await (await import('./rescue-command.ts')).rescueApplyCommand(which, io)),
    );
}
