// ralph-orchestrator's config keys that Ralph reads differently: the facts of its config structs
// (crates/ralph-core/src/config.rs, v2.10.1) and its docs, written as what Ralph does with each.

/** A key path; `*` matches any hat id. */
export type KeyPattern = readonly string[];

/** A key ralph-orchestrator accepts and Ralph has no use for: ignored with this warning. */
export interface IgnoredKey {
  path: KeyPattern;
  /** What Ralph does instead, ending in "ignored". */
  instead: string;
}

/**
 * Every ralph-orchestrator key Ralph accepts and ignores, each with one warning. A key here is
 * removed before the schema reads the config: the resolved config never holds it.
 */
export const IGNORED_KEYS: readonly IgnoredKey[] = [
  {
    path: ['event_loop', 'checkpoint_interval'],
    instead:
      'Ralph records every iteration in .ralph/ and, with git.commit: true, commits after each successful one; ignored',
  },
  {
    path: ['event_loop', 'idle_timeout_secs'],
    instead:
      'ralph-orchestrator does not read this key either; Ralph kills an agent silent for event_loop.idle_timeout_seconds (default 600); ignored',
  },
  {
    path: ['event_loop', 'mutation_score_warn_threshold'],
    instead: 'Ralph runs no mutation testing (put your checks in gates.tests); ignored',
  },
  {
    path: ['event_loop', 'enforce_hat_scope'],
    instead: "Ralph routes every published event by the hats' triggers and drops none for scope; ignored",
  },
  {
    path: ['event_loop', 'context_window_tokens'],
    instead: 'Ralph shows no context-window gauge (event_loop.max_tokens caps a run’s tokens); ignored',
  },
  {
    path: ['cli', 'idle_timeout_secs'],
    instead:
      'ralph-orchestrator times out idle interactive sessions with it; Ralph runs headless and kills an agent silent for event_loop.idle_timeout_seconds; ignored',
  },
  { path: ['cli', 'pty_mode'], instead: 'Ralph runs agents headless without a PTY; ignored' },
  { path: ['cli', 'pty_interactive'], instead: 'Ralph runs agents headless without a PTY; ignored' },
  {
    path: ['RObot', 'mode'],
    instead: "Ralph's RObot talks through Telegram (a browser gets `ralph dashboard`); ignored",
  },
  {
    path: ['verbose'],
    instead: "Ralph's console always shows the agent's output (`ralph logs` for a run's log); ignored",
  },
  {
    path: ['archive_prompts'],
    instead: 'ralph-orchestrator never implemented it; `ralph run --dry-run` prints a prompt; ignored',
  },
  {
    path: ['enable_metrics'],
    instead: '`ralph stats` and the dashboard’s /metrics report every run; ignored',
  },
  {
    path: ['max_tokens'],
    instead:
      "ralph-orchestrator drops v1's max_tokens too; Ralph's token cap is event_loop.max_tokens; ignored",
  },
  {
    path: ['retry_delay'],
    instead: 'Ralph waits out a rate limit until its reset and retries the same iteration; ignored',
  },
  {
    path: ['agent_priority'],
    instead: 'cli.backend: auto tries the agent CLIs in Ralph’s own order; ignored',
  },
  {
    path: ['adapters'],
    instead:
      "per-backend settings are cli.command, cli.args, cli.env and each hat's backend and args; the CLI manages its own permissions; ignored",
  },
  { path: ['tui'], instead: "Ralph's terminal UI has no prefix key (Ctrl-C stops the run); ignored" },
  {
    path: ['features'],
    instead:
      'Ralph runs parallel loops with `ralph run --parallel N` (merge: for merging) and always runs its preflight (`ralph doctor`); ignored',
  },
  {
    path: ['backpressure'],
    instead:
      'ralph-orchestrator does not read this key either (its own ralph.yml has it); Ralph runs gate commands from gates.validate and gates.tests; ignored',
  },
  {
    path: ['_suppress_warnings'],
    instead: 'Ralph prints each warning (`ralph config validate --strict` makes them errors); ignored',
  },
];

/** The ignored keys directly under `path` (a hat id matching `*`): names a misspelling may have meant. */
export function ignoredKeysAt(path: readonly PropertyKey[]): string[] {
  return IGNORED_KEYS.filter(
    (k) =>
      k.path.length === path.length + 1 && path.every((p, i) => k.path[i] === '*' || k.path[i] === String(p)),
  ).map((k) => k.path.at(-1) as string);
}

/** ralph-orchestrator's v1 flat keys and the v2 key each is read as (its `normalize`). */
export const V1_KEYS: Readonly<Record<string, readonly string[]>> = {
  agent: ['cli', 'backend'],
  prompt_file: ['event_loop', 'prompt_file'],
  completion_promise: ['event_loop', 'completion_promise'],
  max_iterations: ['event_loop', 'max_iterations'],
  max_runtime: ['event_loop', 'max_runtime_seconds'],
  max_cost: ['event_loop', 'max_cost_usd'],
};

/** A hat's v1 keys and the key each is read as (its scenario files' `subscribes_to` is `triggers`). */
export const V1_HAT_KEYS: Readonly<Record<string, string>> = {
  subscribes_to: 'triggers',
};

/**
 * ralph-orchestrator features Ralph does not have yet: still errors (ignoring them would drop
 * guards the user relies on), with what is planned.
 */
export const PLANNED_KEYS: Readonly<Record<string, string>> = {};
