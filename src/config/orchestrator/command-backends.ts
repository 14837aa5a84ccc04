import { COMMAND_BACKEND } from '../schema/backend-names.ts';

// ralph-orchestrator's backends that it runs as plain commands, reading their output as text
// (its `OutputFormat::Text`): kiro, kiro-acp, roo and forge. Ralph runs them the same way, as
// `cli.backend: custom` with that command, so their configs load and run unchanged.

type Plain = Record<string, unknown>;

interface CommandBackend {
  command: string;
  args: string[];
  prompt_flag?: string;
  /** What differs from ralph-orchestrator, when something does. */
  differs?: string;
}

const KIRO: CommandBackend = { command: 'kiro-cli', args: ['chat', '--no-interactive', '--trust-all-tools'] };

/** The command each name runs, with the arguments ralph-orchestrator gives it; the prompt is the last argument. */
export const COMMAND_BACKENDS: Readonly<Record<string, CommandBackend>> = {
  kiro: KIRO,
  'kiro-acp': { ...KIRO, differs: 'kiro-cli in its chat mode, not over ACP' },
  roo: { command: 'roo', args: ['--print', '--ephemeral'] },
  forge: { command: 'forge', args: [], prompt_flag: '-p' },
};

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `cli` with a command backend's name read as `backend: custom` and its command (pure), and a note
 * saying so; undefined when `cli.backend` is no such name, or `cli.command` is set (then the
 * user chose the command, and the name is the schema's error to explain).
 */
export function mapCommandBackend(cli: unknown): { cli: Plain; note: string } | undefined {
  if (!isPlain(cli) || typeof cli.backend !== 'string' || cli.command !== undefined) return undefined;
  const name = cli.backend;
  const found = Object.hasOwn(COMMAND_BACKENDS, name) ? COMMAND_BACKENDS[name] : undefined;
  if (found === undefined) return undefined;
  const extra = Array.isArray(cli.args) ? cli.args.filter((a): a is string => typeof a === 'string') : [];
  const args = [...found.args, ...extra];
  const flag = found.prompt_flag === undefined ? {} : { prompt_flag: found.prompt_flag };
  const shown = [found.command, ...args, ...(found.prompt_flag ? [found.prompt_flag] : []), 'PROMPT'].join(
    ' ',
  );
  return {
    cli: {
      ...cli,
      backend: COMMAND_BACKEND,
      command: found.command,
      args,
      prompt_mode: cli.prompt_mode ?? 'arg',
      ...flag,
    },
    note: `backend ${name} read as backend custom: \`${shown}\`, its output read as text as ralph-orchestrator reads it (no token or cost counts${found.differs ? `; ${found.differs}` : ''})`,
  };
}
