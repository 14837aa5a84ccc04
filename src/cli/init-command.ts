import type { Command } from '@commander-js/extra-typings';
import { findPreset, initPreset, PRESETS } from '../config/presets.ts';
import { ExitCode } from '../errors.ts';
import type { CliIO } from './io.ts';

export function registerInitCommands(program: Command, io: CliIO, setCode: (c: number) => void): void {
  program
    .command('init')
    .description('write a workflow preset (ralph.yml, prompt, …) into the current directory')
    .option('--preset <name>', 'preset to write (see `ralph presets`)', 'solo')
    .option('--backend <name>', 'set cli.backend in the written ralph.yml')
    .option('--force', 'overwrite existing files')
    .action((opts) => {
      const written = initPreset(io.cwd, opts.preset, { force: Boolean(opts.force), backend: opts.backend });
      io.out(`wrote preset ${opts.preset}: ${written.join(', ')}\nnext: ${findPreset(opts.preset).next}\n`);
      setCode(ExitCode.ok);
    });
  program
    .command('presets')
    .description('list the workflow presets')
    .action(() => {
      for (const p of PRESETS) io.out(`${p.name.padEnd(10)} ${p.description}\n`);
      setCode(ExitCode.ok);
    });
}
