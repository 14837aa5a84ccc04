import type { Command } from '@commander-js/extra-typings';
import { ExitCode } from '../../errors.ts';
import type { CliIO, SetCode } from '../io.ts';
import { jsonOption } from '../options.ts';
import { emitCommand } from './emit-command.ts';
import { registerInteractTools } from './interact-tools.ts';
import { registerMemoryTools } from './memory-tools.ts';
import { registerSkillTools } from './skill-tools.ts';
import { registerTaskTools } from './task-tools.ts';

/** What agents call inside a loop: `ralph emit` and `ralph tools task|memory|skill|interact …`. */
export function registerAgentToolCommands(program: Command, io: CliIO, setCode: SetCode): void {
  program
    .command('emit')
    .description('append an event to the current events file (used by agents inside a loop)')
    .argument('<topic>', 'the event topic, e.g. work.propose or tests.passed')
    .argument('[payload]', 'text carried with the event (JSON with --json; default: none)')
    .addOption(jsonOption('the payload is JSON'))
    .action((topic, payload, opts) => {
      emitCommand(
        [topic, ...(payload === undefined ? [] : [payload]), ...(opts.json ? ['--json'] : [])],
        io.cwd,
        io.env,
      );
      setCode(ExitCode.ok);
    });
  const tools = program
    .command('tools')
    .description('task, memory, skill and interact tools for agents inside a loop');
  registerTaskTools(tools, io, setCode);
  registerMemoryTools(tools, io, setCode);
  registerSkillTools(tools, io, setCode);
  registerInteractTools(tools, io, setCode);
}
