import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { cliProgram } from '../../src/cli/cli-program.ts';
import { checkCommand, codePieces, ralphCommands } from '../helpers/doc-commands.ts';
import { ROOT } from '../helpers/workspace.ts';

/**
 * The markdown a user (or an agent) reads: README.md, CONTRIBUTING.md, everything under docs/, and
 * the presets' and templates' prompts and notes, which tell the agent which ralph commands to run.
 */
function docFiles(): string[] {
  const top = ['README.md', 'CONTRIBUTING.md'].filter((f) => existsSync(join(ROOT, f)));
  const under = (dir: string) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => `${dir}/${f.split('\\').join('/')}`)
      .sort();
  return [...top, ...under('docs'), ...under('presets'), ...under('templates'), ...under('bench')];
}

/** `file:line: problem` for every `ralph …` in `markdown` that the program would not accept. */
function wrongCommands(program: CommandUnknownOpts, file: string, markdown: string): string[] {
  return codePieces(markdown).flatMap(({ line, text }) =>
    ralphCommands(text).flatMap((words) =>
      checkCommand(program, words).map((p) => `${file}:${line}: ${p} (in \`ralph ${words.join(' ')}\`)`),
    ),
  );
}

describe('flags in the docs', () => {
  it('every `ralph …` command and flag in README.md, CONTRIBUTING.md, docs/, presets/, templates/ and bench/ exists', () => {
    const program = cliProgram();
    const files = docFiles();
    expect(files).toContain('docs/reference/cli.md');
    const wrong = files.flatMap((f) => wrongCommands(program, f, readFileSync(join(ROOT, f), 'utf8')));
    // An output block that starts a line with `ralph` is read as a command: fence it as ```text.
    expect(wrong, 'fix the flag or command; a block of output is fenced as ```text').toEqual([]);
  });

  it('names file:line of a flag or a command that does not exist, in spans and in fenced blocks', () => {
    const markdown = [
      '# Title', // 1
      'Run `ralph run --max-iteration 3` or `ralph stauts`.', // 2
      '```bash', // 3
      'ralph config validate --strictly \\', // 4
      '    --set a=1', // 5
      'cd x && ralph tools task add "t" -x', // 6
      'eval "$(ralph completion bash --zsh)"', // 7
      '```', // 8
      '```yaml', // 9
      'validate: ralph --nope', // 10: not a shell block
      '```', // 11
      '- a list item:', // 12
      '    ~~~sh', // 13: a fence indented with its item
      '    ralph doctor --prob', // 14
      '    ~~~', // 15
    ].join('\n');
    expect(wrongCommands(cliProgram(), 'doc.md', markdown).map((p) => p.split(' (in ')[0])).toEqual([
      'doc.md:2: ralph run has no option --max-iteration (did you mean --max-iterations?)',
      'doc.md:2: ralph has no command stauts (did you mean status?)',
      'doc.md:4: ralph config validate has no option --strictly (did you mean --strict?)',
      'doc.md:6: ralph tools task add has no option -x',
      'doc.md:7: ralph completion has no option --zsh',
      'doc.md:14: ralph doctor has no option --prob (did you mean --probe?)',
    ]);
  });

  it('reads the shapes docs write commands in without false alarms', () => {
    const fine = [
      '`ralph` alone, `ralph 20 -v`, `ralph -q --dry-run`, `ralph help run`, `ralph.yml`, `ralph: error`',
      '`ralph run [-c ralph.yml] [-P PROMPT.md | -p "text"] [--resume | --fresh] [-- extra backend args]`',
      '`ralph run -- --model opus --weird`, `ralph run -vq`, `ralph run -Pfile.md`, `ralph run --max-cost=2`',
      '`ralph tools task add|ensure|list … [--format table|json]`, `ralph config validate|show|explain`',
      '`ralph events [--last N] [--topic T] [--iteration N] [--format table|json] [-f]`',
      '`ralph status --json | jq .`, `bin/ralph doctor --probe`, `npx ralph stop --now # later`',
      '`ralph tools task list --status open`, `ralph plan feature-x --dry-run`, `ralph logs -f > out.log`',
      '`ralph [options] [command]`, `ralph fleet logs <run> [options]`, `ralph runs [options] [command]`',
      '| check | `ralph config validate\\|show`, `ralph worktrees list\\|clean` |', // `\|` in a table cell
      '```console', // a block with `$ ` prompts: the other lines are output
      '$ ralph status',
      'ralph parallel par-1 · into main · 3 workers',
      '```',
      '```text',
      'ralph parallel par-1 · into main · 3 workers',
      '```',
    ].join('\n');
    expect(wrongCommands(cliProgram(), 'doc.md', fine)).toEqual([]);
  });
});
