import { RalphError } from '../../errors.ts';
import type { BackendDefinition } from '../definition.ts';
import { createStreamJsonParser, createTextParser } from '../parsers/stream-json.ts';
import type { Backend } from '../types.ts';

/**
 * Any command: `cli.command` + `cli.args` (a hat on custom: its own `command` + `args`), the prompt
 * on stdin or as an argument.
 */
export function createCustomBackend(outputFormat: 'text' | 'stream-json'): Backend {
  return {
    name: 'custom',
    buildInvocation({ prompt, config, extraArgs }) {
      const { command, args, prompt_mode, prompt_flag } = config.cli;
      if (!command) {
        throw new RalphError(
          'config_invalid',
          'cli.backend is "custom" but cli.command is not set; set it to the agent executable (e.g. cli.command: my-agent)',
        );
      }
      const base = [...args, ...extraArgs];
      if (prompt_mode === 'stdin') return { command, args: base, stdin: prompt, env: {} };
      return {
        command,
        args: prompt_flag ? [...base, prompt_flag, prompt] : [...base, prompt],
        stdin: null,
        env: {},
      };
    },
    createParser: outputFormat === 'stream-json' ? createStreamJsonParser : createTextParser,
  };
}

/** `custom`: the command in `cli.command`, read as `cli.output_format` says. */
export const custom: BackendDefinition = {
  name: 'custom',
  needsCommand: true,
  adapter: (config) => createCustomBackend(config.cli.output_format),
  interactive(config, prompt, { extraArgs = [] }) {
    const { command, args, prompt_flag } = config.cli;
    if (!command) {
      throw new RalphError(
        'config_invalid',
        'cli.backend is "custom" but cli.command is not set; set it to the agent executable (e.g. --set cli.command=my-agent)',
      );
    }
    // stdin is the terminal, so the prompt is always an argument (after cli.prompt_flag when set).
    return { command, args: [...args, ...extraArgs, ...(prompt_flag ? [prompt_flag] : []), prompt] };
  },
};
