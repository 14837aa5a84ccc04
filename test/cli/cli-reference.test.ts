import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { cliProgram } from '../../src/cli/cli-program.ts';
import { cliReference } from '../../src/cli/cli-reference.ts';
import { commandLine, commandTree } from '../../src/cli/command-tree.ts';
import { ROOT } from '../helpers/workspace.ts';

const REFERENCE = 'docs/reference/cli.md';

/** Every command, argument and option of `program` that has no description, named as typed. */
function undescribed(program: CommandUnknownOpts): string[] {
  return commandTree(program).flatMap((entry) => {
    const { command } = entry;
    const at = commandLine(entry);
    return [
      ...(command.description().trim() ? [] : [`command ${at}`]),
      ...command.registeredArguments
        .filter((a) => !a.description.trim())
        .map((a) => `argument ${a.name()} of ${at}`),
      ...command.options.filter((o) => !o.description.trim()).map((o) => `option ${o.flags} of ${at}`),
    ];
  });
}

describe(REFERENCE, () => {
  it('is what `npm run docs` generates from the command definitions', () => {
    const committed = existsSync(join(ROOT, REFERENCE)) ? readFileSync(join(ROOT, REFERENCE), 'utf8') : '';
    expect(committed, `${REFERENCE} is stale: run \`npm run docs\` and commit it`).toBe(
      cliReference(cliProgram()),
    );
  });

  it('lists every visible command with its usage, a contents entry and each option once', () => {
    const page = cliReference(cliProgram());
    expect(page).toContain('- [ralph tools task add](#ralph-tools-task-add)');
    expect(page).toContain('### ralph config validate\n');
    expect(page).toContain('```sh\nralph run [options] [agent-args...]\n```');
    expect(page).toMatch(
      /\| `--format <format>` \| text, or a Mermaid graph \| `text` \| `text`, `mermaid` \|/,
    );
    expect(page).not.toContain('parallel-worker'); // hidden: internal to `ralph run --parallel`
    expect(page.match(/`-h, --help`/g)).toHaveLength(2); // the global options table and the note under it
  });
});

describe('command descriptions', () => {
  it('every command, argument and option of ralph has one', () => {
    expect(undescribed(cliProgram())).toEqual([]);
  });

  it('the check names what has none', () => {
    const program = new Command('ralph').description('x');
    program.command('go').description('go').argument('<where>').option('--fast');
    program.command('stay');
    expect(undescribed(program)).toEqual([
      'argument where of ralph go',
      'option --fast of ralph go',
      'command ralph stay',
    ]);
  });
});
