import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, type Example } from '../../src/cli/cli-examples.ts';
import { cliProgram, normalizeArgv } from '../../src/cli/cli-program.ts';
import { visibleEntries } from '../../src/cli/cli-reference.ts';
import { commandLine } from '../../src/cli/command-tree.ts';
import { runCliInMemory } from '../helpers/cli-in-memory.ts';
import { makeWorkspace } from '../helpers/workspace.ts';

type Table = Readonly<Record<string, readonly Example[]>>;

/** Every command a user sees (the program itself too) that has no example, as typed. */
function withoutExample(program: CommandUnknownOpts, table: Table): string[] {
  return [{ path: [], command: program }, ...visibleEntries(program)]
    .filter((entry) => (table[entry.path.join(' ')] ?? []).length === 0)
    .map(commandLine);
}

/** Keys of the table that name no visible command (a renamed or removed one). */
function strayKeys(program: CommandUnknownOpts, table: Table): string[] {
  const known = new Set(['', ...visibleEntries(program).map((e) => e.path.join(' '))]);
  return Object.keys(table).filter((key) => !known.has(key));
}

/** The words of an example line: quotes group, nothing else of a shell. */
const words = (line: string) =>
  [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');

/** Thrown by a pre-action hook: commander has parsed the line and is about to run this command. */
class Parsed extends Error {
  readonly command: CommandUnknownOpts;
  constructor(command: CommandUnknownOpts) {
    super('parsed');
    this.command = command;
  }
}

const pathOf = (command: CommandUnknownOpts): string[] =>
  command.parent ? [...pathOf(command.parent), command.name()] : [];

/**
 * What is wrong with one example of the command at `path`: commander parses it (options, their
 * value checks, arguments) in a fresh program whose actions never run, and it must reach that
 * command or one under it. `ralph -v` is the version: it reaches the program itself.
 */
async function problemOf(
  makeProgram: () => Command,
  path: string[],
  line: string,
): Promise<string | undefined> {
  const [first, ...args] = words(line);
  if (first !== 'ralph' || /[|;&<>]/.test(line.replace(/"[^"]*"|'[^']*'/g, '')))
    return 'is not one plain `ralph …` line';
  const program = makeProgram();
  program.hook('preAction', (_program, action) => {
    throw new Parsed(action as unknown as CommandUnknownOpts);
  });
  let reached: string[];
  try {
    await program.parseAsync(normalizeArgv(args), { from: 'user' });
    return 'ran no command';
  } catch (error) {
    if (error instanceof Parsed) reached = pathOf(error.command);
    else if (error instanceof CommanderError && error.code === 'commander.version') reached = [];
    else return `does not parse: ${error instanceof Error ? error.message : String(error)}`;
  }
  const under = path.every((word, i) => reached[i] === word);
  return under ? undefined : `reaches ralph ${reached.join(' ')}, not ralph ${path.join(' ')}`;
}

async function badExamples(makeProgram: () => Command, table: Table): Promise<string[]> {
  const problems: string[] = [];
  for (const [key, examples] of Object.entries(table))
    for (const [line] of examples) {
      const problem = await problemOf(makeProgram, key === '' ? [] : key.split(' '), line);
      if (problem) problems.push(`${line}: ${problem}`);
    }
  return problems;
}

describe('an example per command', () => {
  it('every command ralph --help shows has one, and every example is of a command that exists', () => {
    expect(withoutExample(cliProgram(), EXAMPLES)).toEqual([]);
    expect(strayKeys(cliProgram(), EXAMPLES)).toEqual([]);
  });

  it('every example parses with the real program and reaches its command', async () => {
    expect(await badExamples(cliProgram, EXAMPLES)).toEqual([]);
  });

  it('names a command without an example, a flag that does not exist and an example of another command', async () => {
    const makeProgram = () => {
      const program = new Command('ralph').exitOverride().configureOutput({ writeErr: () => {} });
      program
        .command('go')
        .option('--fast')
        .argument('[where]')
        .action(() => {});
      program.command('stay').action(() => {});
      program.command('secret', { hidden: true }).action(() => {});
      return program;
    };
    const table: Table = {
      '': [['ralph go', 'go']],
      go: [
        ['ralph go --quick', 'fast'],
        ['ralph stay', 'the wrong one'],
        ['ralph go | cat', 'a pipe'],
        ['ralph go there --fast', 'fine'],
      ],
      gone: [['ralph go', 'a command removed since']],
    };
    expect(withoutExample(makeProgram(), table)).toEqual(['ralph stay']);
    expect(strayKeys(makeProgram(), table)).toEqual(['gone']);
    expect(await badExamples(makeProgram, table)).toEqual([
      "ralph go --quick: does not parse: error: unknown option '--quick'",
      'ralph stay: reaches ralph stay, not ralph go',
      'ralph go | cat: is not one plain `ralph …` line',
      'ralph go: reaches ralph go, not ralph gone',
    ]);
  });
});

describe('examples in --help', () => {
  it('ralph COMMAND --help and ralph help COMMAND end with its examples', async () => {
    const cwd = makeWorkspace({});
    const help = await runCliInMemory(['tools', 'task', 'add', '--help'], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /\nExamples:\n {2}# an urgent task; prints its id\n {2}ralph tools task add "Parse dates in ISO 8601" -p 2\n/,
    );
    const viaHelp = await runCliInMemory(['help', 'status'], { cwd });
    expect(viaHelp.stdout).toContain('  ralph status --json\n');
  });

  it('a command run without --help prints no examples', async () => {
    const cwd = makeWorkspace({});
    const r = await runCliInMemory(['presets'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Examples:');
  });
});
