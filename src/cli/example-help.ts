import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { EXAMPLES, type Example } from './cli-examples.ts';
import { type CommandEntry, commandTree } from './command-tree.ts';

// The examples of cli-examples.ts as `--help` and docs/reference/cli.md show them.

/** The examples of a command. */
export const examplesOf = (entry: CommandEntry): readonly Example[] => EXAMPLES[entry.path.join(' ')] ?? [];

/** Example lines as help text and the reference show them: what it does as a comment, then the line. */
export function exampleLines(examples: readonly Example[]): string[] {
  return examples.flatMap(([line, what]) => [`# ${what}`, line]);
}

/** Puts each command's examples under its `--help` (loaded only when help is asked for). */
export function addExamplesToHelp(program: CommandUnknownOpts): void {
  for (const entry of commandTree(program)) {
    const examples = examplesOf(entry);
    if (examples.length === 0) continue;
    const lines = exampleLines(examples).map((l) => `  ${l}`);
    entry.command.addHelpText('after', `\nExamples:\n${lines.join('\n')}`);
  }
}
