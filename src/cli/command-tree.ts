import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';

// The one walk over the CLI's own commander definitions: shell completion, the CLI reference
// (docs/reference/cli.md) and the docs' flag check all read the tree through it, so none of them
// can drift from what `ralph` accepts.

/** One command of the tree: the words after `ralph` that reach it, and its definition. */
export interface CommandEntry {
  /** `['config', 'validate']`; `[]` for the program itself. */
  path: string[];
  command: CommandUnknownOpts;
}

/** Every command of `root`, the program first, then depth-first in definition order (hidden ones too). */
export function commandTree(root: CommandUnknownOpts): CommandEntry[] {
  const out: CommandEntry[] = [];
  const visit = (command: CommandUnknownOpts, path: string[]) => {
    out.push({ path, command });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(root, []);
  return out;
}

/** `ralph config validate`: how a user types the command. */
export function commandLine(entry: CommandEntry): string {
  return ['ralph', ...entry.path].join(' ');
}

/** The flags an option answers to (`--config`, `-c`), long first. */
export function optionFlags(option: Option): string[] {
  return [option.long, option.short].filter((f): f is string => f !== undefined);
}

/**
 * Every option `command` accepts as commander parses a line: its own (hidden ones too), `-h/--help`,
 * and its parents' (commander reads a parent's options anywhere on the line).
 */
export function acceptedOptions(command: CommandUnknownOpts): Option[] {
  const own = [...command.options, ...command.createHelp().visibleOptions(command)];
  return command.parent ? [...own, ...acceptedOptions(command.parent)] : own;
}

/** The subcommand `word` names under `command`, by name or alias (hidden ones too). */
export function subcommand(command: CommandUnknownOpts, word: string): CommandUnknownOpts | undefined {
  return command.commands.find((c) => c.name() === word || c.aliases().includes(word));
}
