import { z } from 'zod';
import { BACKEND_NAMES } from './backend-names.ts';

export { AGENT_CLI_NAMES, type AgentCliName, BACKEND_NAMES, type BackendName } from './backend-names.ts';

/** Names people try that Ralph cannot drive, with what to do instead. */
// ralph-orchestrator's backends Ralph has no driver for, each with the custom command that runs that CLI.
const UNSUPPORTED_BACKENDS: Record<string, string> = {
  kiro: 'Ralph has no headless driver for kiro-cli; run it with cli.backend: custom and cli.command: kiro-cli (cli.args: [chat, --no-interactive, --trust-all-tools], cli.prompt_mode: arg)',
  'kiro-acp':
    "Ralph has no driver for kiro-cli's ACP mode; run kiro-cli with cli.backend: custom and cli.command: kiro-cli (cli.args: [chat, --no-interactive, --trust-all-tools], cli.prompt_mode: arg)",
  roo: 'Ralph has no driver for the roo CLI; run it with cli.backend: custom and cli.command: roo (cli.args: [--print, --ephemeral], cli.prompt_mode: arg)',
  forge:
    'Ralph has no driver for the forge CLI; run it with cli.backend: custom and cli.command: forge (cli.prompt_mode: arg, cli.prompt_flag: -p)',
};

/** A backend name, with an error that lists the valid names (and says why a known-unsupported one is refused). */
export const backendName = z.enum(BACKEND_NAMES, {
  error: (issue) => {
    const input = String(issue.input);
    const why = UNSUPPORTED_BACKENDS[input];
    return why
      ? `backend "${input}" is not supported: ${why}`
      : `unknown backend "${input}"; use one of ${BACKEND_NAMES.join(', ')}`;
  },
});

export const positive = z.number().positive();
export const positiveInt = z.int().positive();
export const stringOrList = z.union([z.string(), z.array(z.string())]);

/** A model ladder (`cli.models`, `hats.<hat>.models`): model names, cheapest first, no repeats. */
export const modelLadder = z
  .array(z.string().min(1))
  .min(1)
  .refine((models) => new Set(models).size === models.length, {
    error: 'a model appears twice in the ladder; list each model once, cheapest first',
  });

/** Where the reference explains path patterns (the keys that take them link here). */
export const PATH_PATTERNS_LINK = 'path patterns (docs/concepts/path-patterns.md)';

/** A list of path patterns (`gates.protect`, `event_loop.idle_watch`, `tdd.allowed_paths`). */
export const pathPatterns = z.array(z.string().min(1));

/** A scratchpad setting (`core.scratchpad`, `hats.<hat>.scratchpad`): a path, or `{enabled, path}`. */
export const scratchpadSetting = z.union([
  z.string().meta({ description: 'Path of the scratchpad file, relative to the workspace.' }),
  z.strictObject({
    enabled: z
      .boolean()
      .default(true)
      .meta({ description: '`false`: no scratchpad (none is read into the prompt or kept).' }),
    path: z.string().optional().meta({
      description: 'Path of the scratchpad file, relative to the workspace (absent: the default path).',
    }),
  }),
]);
