// The names alone, without zod: the backend registry and the presets need them on `ralph run`'s
// start, where the config schema (zod) is not loaded when the config comes from its cache.

/**
 * The agent CLIs Ralph drives, in the order `cli.backend: auto` looks for them on PATH (amp last:
 * without AMP_API_KEY it waits for a login). The one list of names: every other list derives from it.
 */
export const AGENT_CLI_NAMES = [
  'claude',
  'codex',
  'gemini',
  'opencode',
  'qwen',
  'copilot',
  'cline',
  'cursor',
  'pi',
  'amp',
] as const;
export type AgentCliName = (typeof AGENT_CLI_NAMES)[number];

/** Every `cli.backend` value: `auto`, the agent CLIs, `custom` (any command) and `fake` (scripted agent). */
export const BACKEND_NAMES = ['auto', ...AGENT_CLI_NAMES, 'custom', 'fake'] as const;
/** A `cli.backend` value: one of {@link BACKEND_NAMES}. */
export type BackendName = (typeof BACKEND_NAMES)[number];

/**
 * The backends `ralph plan` can open interactively: those whose definition has `interactive`, in
 * the registry's order (test/unit/backends/backend-definitions.test.ts holds the two together). A name list
 * here, so that defining `ralph plan -b` does not load every backend's definition and parser.
 */
export const INTERACTIVE_BACKEND_NAMES = [
  'claude',
  'codex',
  'gemini',
  'opencode',
  'pi',
  'custom',
  'fake',
] as const;

/** The backend that runs any command (`cli.command`, a hat's `command`). */
export const COMMAND_BACKEND = 'custom' satisfies BackendName;

/** Names other loops give Ralph's agent CLIs (ralph-tui's `agent`, frankbria's Claude Code loop). */
export const BACKEND_ALIASES: Readonly<Record<string, AgentCliName>> = {
  'github-copilot': 'copilot',
  'claude-code': 'claude',
};
