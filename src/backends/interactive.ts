import { resolve } from 'node:path';
import type { BackendName, RalphConfig } from '../config/schema.ts';
import { RalphError } from '../errors.ts';
import { FAKE_AGENT_MAIN } from '../paths-package.ts';

/** The command of an interactive agent session: it owns the terminal, so the prompt is an argument. */
export interface InteractiveInvocation {
  command: string;
  args: string[];
}

export interface InteractiveOptions {
  /** Resolves a relative `cli.fake_script`; the session runs here. */
  workspace?: string | undefined;
  /** Arguments after `--` on the ralph command line, placed before the prompt. */
  extraArgs?: readonly string[] | undefined;
}

/** The backends `ralph plan` can open interactively (the cases below). */
export const INTERACTIVE_BACKENDS = [
  'claude',
  'codex',
  'gemini',
  'opencode',
  'custom',
  'fake',
] as const satisfies readonly BackendName[];

/**
 * Builds the command that opens `backendName` interactively with `prompt` as its first message (for
 * `ralph plan`). Flags checked against each CLI's own documentation (see the comments below).
 */
export function interactiveInvocation(
  backendName: BackendName,
  config: RalphConfig,
  prompt: string,
  opts: InteractiveOptions = {},
): InteractiveInvocation {
  const extra = [...(opts.extraArgs ?? [])];
  const model = config.cli.model ? ['--model', config.cli.model] : [];
  switch (backendName) {
    case 'claude':
      // `claude "query"` starts the REPL with an initial prompt; `-p` would print and exit
      // (docs.anthropic.com/en/docs/claude-code/cli-reference).
      return { command: 'claude', args: [...model, ...extra, prompt] };
    case 'codex':
      // `codex "..."` opens the TUI with an initial prompt; `codex exec` is the non-interactive mode
      // (developers.openai.com/codex/cli/features, "Running in interactive mode").
      return { command: 'codex', args: [...model, ...extra, prompt] };
    case 'gemini':
      // `-i/--prompt-interactive`: "Execute the provided prompt and continue in interactive mode";
      // `-p` is headless (geminicli.com/docs/cli/cli-reference).
      return { command: 'gemini', args: [...model, ...extra, '-i', prompt] };
    case 'opencode':
      // `opencode [project]` starts the TUI; `--prompt` is its "Prompt to use" (opencode.ai/docs/cli).
      // Model names there are provider/model.
      return { command: 'opencode', args: [...model, ...extra, '--prompt', prompt] };
    case 'custom': {
      const { command, args, prompt_flag } = config.cli;
      if (!command) {
        throw new RalphError(
          'config_invalid',
          'cli.backend is "custom" but cli.command is not set; set it to the agent executable (e.g. --set cli.command=my-agent)',
        );
      }
      // stdin is the terminal, so the prompt is always an argument (after cli.prompt_flag when set).
      return {
        command,
        args: [...args, ...extra, ...(prompt_flag ? [prompt_flag] : []), prompt],
      };
    }
    case 'fake': {
      const script = config.cli.fake_script ?? process.env.RALPH_FAKE_SCRIPT;
      if (!script) {
        throw new RalphError(
          'config_invalid',
          'the fake backend needs a script: set cli.fake_script (or RALPH_FAKE_SCRIPT) to a fake-agent YAML file',
        );
      }
      const scriptPath = opts.workspace ? resolve(opts.workspace, script) : script;
      return {
        command: process.execPath,
        args: [FAKE_AGENT_MAIN, '--script', scriptPath, ...extra, '--prompt', prompt],
      };
    }
    case 'auto':
      throw new RalphError(
        'backend_unavailable',
        `no backend selected: an interactive session needs a named agent; set cli.backend in ralph.yml or pass -b (${INTERACTIVE_BACKENDS.join(', ')})`,
      );
    default:
      throw new RalphError(
        'backend_unavailable',
        `no interactive mode known for backend "${backendName}" (available: ${INTERACTIVE_BACKENDS.join(', ')}); ` +
          'to open that CLI anyway, pass -b custom --set cli.command=<executable> (plus cli.prompt_flag if it takes one)',
      );
  }
}
