import type { Command } from '@commander-js/extra-typings';
import { ExitCode } from '../../errors.ts';
import type { CliIO, SetCode } from '../io.ts';
import { jsonOption } from '../options.ts';
import { emitCommand } from './emit-command.ts';
import { registerInteractTools } from './interact-tools.ts';
import { registerMemoryTools } from './memory-tools.ts';
import { registerSkillTools } from './skill-tools.ts';
import { registerTaskTools } from './task-tools.ts';
import { waveEmitCommand } from './wave-emit-command.ts';

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
  program
    .command('wave')
    .description('agent waves: dispatch one event per payload to a hat with `concurrency`')
    .command('emit')
    .description('append one event per payload, tagged as one wave (used by agents inside a loop)')
    .argument('<topic>', 'the topic of every event of the wave, e.g. review.perspective')
    .requiredOption('--payloads <payloads...>', 'one payload per member of the wave')
    .action((topic, opts) => {
      const { waveId, file } = waveEmitCommand(topic, opts.payloads, io.cwd, io.env);
      io.out(`${waveId}\n`);
      io.err(`wave ${waveId}: ${opts.payloads.length} event(s) on ${topic} in ${file}\n`);
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
