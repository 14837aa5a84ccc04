import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { ExitCode, UsageError } from '../../errors.ts';
import { commandTree, optionFlags } from '../command-tree.ts';
import type { CliIO } from '../io.ts';

/** One completable command: its words (`config validate`), subcommands, options and description. */
interface Node {
  path: string;
  description: string;
  subcommands: string[];
  options: { flags: string[]; description: string; takesValue: boolean }[];
}

/** The completable commands, read from the CLI's own command tree so completion never drifts (hidden ones left out). */
function nodes(root: CommandUnknownOpts): Node[] {
  const help = root.createHelp();
  const hidden = (path: string[]) =>
    path.some((_, i) => {
      const parent =
        i === 0
          ? root
          : commandTree(root).find((e) => e.path.join(' ') === path.slice(0, i).join(' '))?.command;
      return parent !== undefined && !help.visibleCommands(parent).some((c) => c.name() === path[i]);
    });
  return commandTree(root)
    .filter(({ path }) => !hidden(path))
    .map(({ path, command }) => ({
      path: path.join(' '),
      description: command.description(),
      subcommands: help
        .visibleCommands(command)
        .map((c) => c.name())
        .filter((name) => name !== 'help'),
      options: command.options
        .filter((o) => !o.hidden)
        .map((o) => ({
          flags: optionFlags(o),
          description: o.description,
          takesValue: o.required || o.optional,
        })),
    }));
}

function bash(tree: Node[]): string {
  const cases = tree
    .map((n) => {
      const words = [...n.subcommands, ...n.options.flatMap((o) => o.flags), '--help'].join(' ');
      return `    "${n.path}") words="${words}" ;;`;
    })
    .join('\n');
  const paths = tree.map((n) => n.path).filter(Boolean);
  return `# ralph completion for bash: eval "$(ralph completion bash)" in ~/.bashrc
_ralph() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next i w words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    case " ${paths.map((p) => `${p.replace(/ /g, '_')}`).join(' ')} " in
      *" \${next// /_} "*) path="$next" ;;
    esac
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _ralph ralph
`;
}

/** A zsh word list entry: `name:description` (a colon in the name escaped), single-quoted. */
function zshItem(name: string, description: string): string {
  const item = `${name.replace(/:/g, '\\:')}:${description}`;
  return `'${item.replace(/'/g, "'\\''")}'`;
}

/** Native zsh completion: each command and flag with its description (`_describe`), files elsewhere. */
function zsh(tree: Node[]): string {
  const paths = tree.map((n) => n.path).filter(Boolean);
  const cases = tree
    .map((n) => {
      const subs = n.subcommands.map((name) => {
        const sub = tree.find((t) => t.path === (n.path ? `${n.path} ${name}` : name));
        return zshItem(name, sub?.description ?? '');
      });
      const opts = [
        ...n.options.flatMap((o) => o.flags.map((f) => zshItem(f, o.description))),
        zshItem('--help', 'display help for command'),
      ];
      return `    ('${n.path}') subs=(${subs.join(' ')}); opts=(${opts.join(' ')}) ;;`;
    })
    .join('\n');
  return `#compdef ralph
# ralph completion for zsh: eval "$(ralph completion zsh)" in ~/.zshrc
(( $+functions[compdef] )) || { autoload -U compinit && compinit; }
_ralph() {
  local p="" next w i
  local -a subs opts
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    [[ $w == -* ]] && continue
    next="\${p:+$p }$w"
    case "$next" in
      (${paths.map((x) => `'${x}'`).join('|')}) p=$next ;;
    esac
  done
  case "$p" in
${cases}
  esac
  if [[ \${words[CURRENT]} == -* ]]; then
    _describe -t options 'option' opts
  elif (( \${#subs} )); then
    _describe -t commands 'command' subs
  else
    _files
  fi
}
compdef _ralph ralph
`;
}

function fish(tree: Node[]): string {
  const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = [
    '# ralph completion for fish: ralph completion fish > ~/.config/fish/completions/ralph.fish',
  ];
  for (const n of tree) {
    const words = n.path ? n.path.split(' ') : [];
    // Offer a node's subcommands once its own words were typed and none of its subcommands yet.
    const at =
      words.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${words.at(-1)}${n.subcommands.length ? `; and not __fish_seen_subcommand_from ${n.subcommands.join(' ')}` : ''}`;
    for (const name of n.subcommands) {
      const sub = tree.find((t) => t.path === (n.path ? `${n.path} ${name}` : name));
      lines.push(`complete -c ralph -f -n ${q(at)} -a ${q(name)} -d ${q(sub?.description ?? '')}`);
    }
    const cond = words.length === 0 ? '' : ` -n ${q(`__fish_seen_subcommand_from ${words.at(-1)}`)}`;
    for (const o of n.options) {
      const long = o.flags.find((f) => f.startsWith('--'))?.slice(2);
      const short = o.flags.find((f) => /^-[^-]$/.test(f))?.slice(1);
      lines.push(
        `complete -c ralph${cond}${long ? ` -l ${long}` : ''}${short ? ` -s ${short}` : ''}${o.takesValue ? ' -r' : ''} -d ${q(o.description)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `ralph completion bash|zsh|fish`: a completion script generated from the CLI's command tree. */
export function completionCommand(shell: string, program: CommandUnknownOpts, io: CliIO): number {
  const tree = nodes(program);
  const scripts: Record<string, (t: Node[]) => string> = { bash, zsh, fish };
  const make = scripts[shell];
  if (!make) throw new UsageError(`ralph completion supports bash, zsh and fish, not "${shell}"`);
  io.out(make(tree));
  return ExitCode.ok;
}
