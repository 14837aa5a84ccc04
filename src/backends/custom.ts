import { RalphError } from '../errors.ts';
import { createStreamJsonParser, createTextParser } from './stream-json.ts';
import type { Backend } from './types.ts';

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
