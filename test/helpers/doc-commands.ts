import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { acceptedOptions, optionFlags, subcommand } from '../../src/cli/command-tree.ts';
import { closestMatch } from '../../src/config/suggest.ts';

// Finds the `ralph …` command lines in any markdown (code spans and fenced code blocks) and checks
// each against the CLI's commander program: the command path must exist and every flag must be
// one that command accepts. The docs are rewritten by hand; this keeps their flags honest.

/** A piece of code in a markdown file and the line it starts on (1-based). */
export interface CodePiece {
  line: number;
  text: string;
}

/** Fence languages whose lines are not shell commands: output (`text`), data and other languages. */
const NOT_SHELL =
  /^(text|txt|plain|output|log|ya?ml|json[c5]?|jsx?|tsx?|javascript|typescript|mjs|cjs|toml|ini|diff|html|css|mermaid|python|py|go|rust|xml|dockerfile)$/i;

/**
 * The command lines of a fenced block: when some lines start with a `$ ` prompt, only those (the
 * rest is output); else every line. A line ending in `\` goes on on the next.
 */
function blockCommands(lines: readonly { line: number; text: string }[]): CodePiece[] {
  const joined: CodePiece[] = [];
  for (let i = 0; i < lines.length; i++) {
    const { line } = lines[i] as CodePiece;
    let { text } = lines[i] as CodePiece;
    while (/\\\s*$/.test(text) && i + 1 < lines.length)
      text = `${text.replace(/\\\s*$/, ' ')}${(lines[++i] as CodePiece).text}`;
    joined.push({ line, text });
  }
  const prompted = joined.filter((p) => /^\s*\$ /.test(p.text));
  return prompted.length > 0 ? prompted : joined;
}

/** Every inline code span, and the command lines of every fenced block in a shell language or none. */
export function codePieces(markdown: string): CodePiece[] {
  const lines = markdown.split(/\r?\n/);
  const pieces: CodePiece[] = [];
  let fence: { close: RegExp; shell: boolean; lines: CodePiece[] } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (fence) {
      if (fence.close.test(line)) {
        if (fence.shell) pieces.push(...blockCommands(fence.lines));
        fence = undefined;
      } else fence.lines.push({ line: i + 1, text: line });
      continue;
    }
    // Any indent: a fence inside a list item is indented with the item.
    const open = /^\s*(`{3,}|~{3,})\s*([^\s`{]*)/.exec(line);
    if (open) {
      const marker = open[1] as string;
      const close = new RegExp(`^\\s*${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
      fence = { close, shell: !NOT_SHELL.test(open[2] as string), lines: [] };
      continue;
    }
    // In a table row a `|` inside a code span is written `\|` (GFM), and it renders as `|`.
    const tableRow = /^\s*\|/.test(line);
    for (const m of line.matchAll(/(`+)(?!`)(.+?)(?<!`)\1(?!`)/g)) {
      const text = m[2] as string;
      pieces.push({ line: i + 1, text: tableRow ? text.replaceAll('\\|', '|') : text });
    }
  }
  // An unclosed fence runs to the end of the file (as markdown renders it).
  if (fence?.shell) pieces.push(...blockCommands(fence.lines));
  return pieces;
}

/** Words of a shell-like line: quotes group, `$(…)` is cut out as its own line. */
function shellWords(text: string): { words: string[]; nested: string[] } {
  const nested: string[] = [];
  let flat = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '(') {
      let depth = 1;
      let j = i + 2;
      for (; j < text.length && depth > 0; j++) depth += text[j] === '(' ? 1 : text[j] === ')' ? -1 : 0;
      nested.push(text.slice(i + 2, j - 1));
      flat += ' SUBSTITUTION ';
      i = j - 1;
    } else flat += text[i];
  }
  const words = [...flat.matchAll(/"([^"]*)"?|'([^']*)'?|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
  return { words, nested };
}

/** A word before the command name that still leaves it the command (`$ `, `FOO=1`, `npx`). */
const PREFIX = /^(\$|>|[A-Za-z_][A-Za-z0-9_]*=.*|npx|node|exec|time|env|sudo|nohup|command)$/;
/** Words that end one command and may start another. */
const SEPARATOR = /^(&&|\|\||;|&|\|)$/;

/** The words after `ralph` of every `ralph …` command in a piece of code. */
export function ralphCommands(code: string): string[][] {
  const { words, nested } = shellWords(code);
  const segments: string[][] = [[]];
  let depth = 0; // inside `[…]` of a synopsis, `|` separates alternatives, not commands
  for (const word of words) {
    if (SEPARATOR.test(word) && (depth === 0 || word !== '|')) segments.push([]);
    else if (word === '#') break;
    else {
      depth += (word.match(/[[({]/g)?.length ?? 0) - (word.match(/[\])}]/g)?.length ?? 0);
      (segments.at(-1) as string[]).push(word.replace(/;$/, ''));
    }
  }
  const found = segments.flatMap((segment) => {
    const at = segment.findIndex((w) => !PREFIX.test(w));
    const name = segment[at];
    if (name === undefined || !(name === 'ralph' || name.endsWith('/ralph'))) return [];
    const rest = segment.slice(at + 1);
    const end = rest.findIndex((w) => /^\d*>/.test(w) || w === '#');
    return [end === -1 ? rest : rest.slice(0, end)];
  });
  return [...found, ...nested.flatMap(ralphCommands)];
}

/** A word as written in a synopsis (`[-f]`, `--format]`, `(--json)`) without its brackets. */
const bare = (word: string) => word.replace(/^[[({]+/, '').replace(/[\])},.:;]+$/, '');

/** ` (did you mean --max-iterations?)` when a word is close to one of `candidates`. */
function didYouMean(word: string, candidates: readonly string[]): string {
  // A one-letter flag is close to every other one: no guess there.
  const close = word.length > 2 ? closestMatch(word, candidates) : undefined;
  return close ? ` (did you mean ${close}?)` : '';
}

/** `ralph config validate`: the command as typed. */
const name = (command: CommandUnknownOpts): string => ['ralph', ...ancestry(command)].join(' ');

function ancestry(command: CommandUnknownOpts): string[] {
  return command.parent ? [...ancestry(command.parent), command.name()] : [];
}

/** What is wrong with `ralph WORDS…` against the program: unknown commands and options, in words. */
export function checkCommand(program: CommandUnknownOpts, words: readonly string[]): string[] {
  const first = bare(words[0] ?? '');
  const run = subcommand(program, 'run') as CommandUnknownOpts;
  // normalizeArgv: `ralph 20 …` and `ralph -v …` are `ralph run …`.
  if (/^\d+$/.test(first)) return check(run, words.slice(1));
  if (first.startsWith('-') && !['-h', '--help', '-V', '--version'].includes(first)) return check(run, words);
  return check(program, words);
}

function check(command: CommandUnknownOpts, words: readonly string[]): string[] {
  const problems: string[] = [];
  const options = acceptedOptions(command);
  const find = (flag: string) => options.find((o) => optionFlags(o).includes(flag));
  let operands = false;
  for (let i = 0; i < words.length; i++) {
    const word = bare(words[i] as string);
    if (word === '--') break;
    if (/^--?[A-Za-z]/.test(word)) {
      operands = true;
      const flags = word.startsWith('--')
        ? [word.split('=')[0] as string]
        : [...word.slice(1)].map((c) => `-${c}`);
      for (const flag of flags) {
        const option = find(flag);
        if (!option) {
          problems.push(
            `${name(command)} has no option ${flag}${didYouMean(flag, options.flatMap(optionFlags))}`,
          );
          break;
        }
        if (option.required || option.optional) {
          // The value is the rest of the word (`-fvalue`, `--x=1`) or the next word.
          if (flag === flags.at(-1) && !word.includes('=') && !/^-/.test(bare(words[i + 1] ?? '-'))) i++;
          break;
        }
      }
      continue;
    }
    // `[options]`, `<run>`, `[agent-args...]`: a placeholder for operands, not a command.
    if (operands || /^[[<]/.test(words[i] as string)) {
      operands = true;
      continue;
    }
    const alternatives = word.split('|');
    const subcommands = alternatives.map((w) => subcommand(command, w));
    if (
      subcommands.some(Boolean) ||
      (command.commands.length > 0 &&
        command.registeredArguments.length === 0 &&
        /^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*$/.test(word))
    ) {
      if (word === 'help') return problems;
      const missing = alternatives.filter((_, k) => !subcommands[k]);
      if (missing.length > 0)
        return [
          ...problems,
          ...missing.map(
            (w) =>
              `${name(command)} has no command ${w}${didYouMean(
                w,
                command.commands.map((c) => c.name()),
              )}`,
          ),
        ];
      // `config validate|show`: a flag after it is fine when one of the alternatives takes it.
      const branches = subcommands.map((s) => check(s as CommandUnknownOpts, words.slice(i + 1)));
      return [...problems, ...(branches.find((b) => b.length === 0) ?? branches[0] ?? [])];
    }
    operands = true;
  }
  return problems;
}
