// Every `RALPH_*` environment variable, one list: docs/reference/environment.md is generated from it
// (`npm run docs`), and a test fails when the source names a variable this list does not.

/** Who sets a variable, and who reads it. */
export type EnvAudience = 'you' | 'agent' | 'notify' | 'hook' | 'internal' | 'testing';

export interface EnvVariable {
  name: string;
  audience: EnvAudience;
  meaning: string;
}

export const ENVIRONMENT: readonly EnvVariable[] = [
  // Set by you, read by Ralph.
  {
    name: 'RALPH_AGENT',
    audience: 'you',
    meaning:
      'The backend to run (a `cli.backend` name), over the config files; `--set cli.backend=…` and `-b` still win.',
  },
  {
    name: 'RALPH_DIAGNOSTICS',
    audience: 'you',
    meaning:
      '`1`: write `.ralph/diagnostics/<ts>/` (agent output, orchestration, performance, trace, errors, the prompts).',
  },
  {
    name: 'RALPH_DEBUG',
    audience: 'you',
    meaning:
      'Set (anything but `0` or `false`): the `--debug` trace on stderr for every command: config files read, cache hits and misses, the agent backend and argv, each child process (argv, cwd, exit, duration), HTTP calls (method, URL without query, status, duration), locks, state files written. Secrets redacted; the terminal UI gives way to plain lines; not passed on to agents.',
  },
  {
    name: 'RALPH_TELEGRAM_BOT_TOKEN',
    audience: 'you',
    meaning:
      'The Telegram bot token (wins over `RObot.telegram.bot_token`; keep tokens out of files you commit). Never logged.',
  },
  {
    name: 'RALPH_TELEGRAM_API_URL',
    audience: 'you',
    meaning:
      'The Telegram Bot API base (wins over `RObot.telegram.api_url`; default https://api.telegram.org).',
  },
  {
    name: 'RALPH_REDIS_URL',
    audience: 'you',
    meaning: "The fleet's Redis (`ralph fleet …`), over `fleet.redis`; `--redis` wins.",
  },
  {
    name: 'RALPH_HEALTH_DISK_FREE_BYTES',
    audience: 'you',
    meaning: 'The free disk space the health check requires (bytes), instead of its default.',
  },
  {
    name: 'RALPH_FORGE_POLL_SECONDS',
    audience: 'you',
    meaning: 'How often a run waiting for a pull request to merge asks the forge (default: once a minute).',
  },
  {
    name: 'RALPH_PROCESS_TABLE',
    audience: 'you',
    meaning:
      '`ps` or `proc`: how Ralph lists processes for the sweep and the lock check (default: /proc on Linux, ps elsewhere).',
  },
  {
    name: 'RALPH_FAKE_SCRIPT',
    audience: 'you',
    meaning: "The `fake` backend's script, relative to the workspace (as `cli.fake_script`).",
  },
  // Set by Ralph for every agent process (docs/concepts/agent-environment.md).
  {
    name: 'RALPH_BIN',
    audience: 'agent',
    meaning: 'The `ralph` that runs the loop (the agent calls it for `emit`, `tools`, `ask`).',
  },
  {
    name: 'RALPH_WORKSPACE_ROOT',
    audience: 'agent',
    meaning: "The workspace (or worktree): where the agent's `ralph` commands act.",
  },
  {
    name: 'RALPH_EVENTS_FILE',
    audience: 'agent',
    meaning:
      "The run's events file, absolute: `ralph emit` appends to it. A wave member gets its own file (`.ralph/events-<YYYYMMDD-HHMMSS>.waves/<iteration>-<index>.jsonl`).",
  },
  {
    name: 'RALPH_WAVE_WORKER',
    audience: 'agent',
    meaning: '`1` in a member of an agent wave; `ralph wave emit` refuses to run there (waves do not nest).',
  },
  {
    name: 'RALPH_WAVE_ID',
    audience: 'agent',
    meaning: "A wave member's wave: `<run-id>-<iteration>`.",
  },
  { name: 'RALPH_WAVE_INDEX', audience: 'agent', meaning: "A wave member's place in its wave, from 0." },
  { name: 'RALPH_WAVE_TOTAL', audience: 'agent', meaning: "The number of members of a wave member's wave." },
  { name: 'RALPH_ITERATION', audience: 'agent', meaning: 'The iteration number.' },
  { name: 'RALPH_HAT', audience: 'agent', meaning: 'The active hat (empty in solo mode).' },
  { name: 'RALPH_RUN_ID', audience: 'agent', meaning: 'The run id.' },
  {
    name: 'RALPH_ITERATION_MARK',
    audience: 'agent',
    meaning:
      "`<run-id>:<iteration>`: the mark the end-of-iteration sweep finds the agent's leftover processes by.",
  },
  {
    name: 'RALPH_HUMAN_TIMEOUT_SECONDS',
    audience: 'agent',
    meaning: 'How long `ralph ask` waits for an answer (from `human.timeout_seconds`).',
  },
  {
    name: 'RALPH_HUMAN_CHANNEL',
    audience: 'agent',
    meaning:
      'Where `ralph tools interact progress` notes go: `telegram` (with `RObot.enabled`) or `none` (recorded in the run log and event stream only).',
  },
  {
    name: 'RALPH_HUMAN_DEFAULT_ANSWER',
    audience: 'agent',
    meaning: 'What `ralph ask` prints when nobody answered in time (from `human.default_answer`).',
  },
  {
    name: 'RALPH_FAKE_PROMPT',
    audience: 'agent',
    meaning: "The `fake` backend's prompt file (the scripted agent reads its prompt there).",
  },
  {
    name: 'RALPH_MERGE_TASK',
    audience: 'agent',
    meaning: 'In a `--parallel` run, the task whose merge an agent is resolving (the merge queue sets it).',
  },
  // Set by Ralph for `notify.command`.
  {
    name: 'RALPH_NOTIFY_KIND',
    audience: 'notify',
    meaning: 'What happened (stopped, asked, waiting, parked, resumed, limit).',
  },
  { name: 'RALPH_NOTIFY_RUN_ID', audience: 'notify', meaning: 'The run id.' },
  { name: 'RALPH_NOTIFY_MESSAGE', audience: 'notify', meaning: 'The notification, one line.' },
  { name: 'RALPH_NOTIFY_WORKSPACE', audience: 'notify', meaning: 'The workspace.' },
  // Set by Ralph for each lifecycle hook (with the agent's RALPH_* variables).
  { name: 'RALPH_HOOK_NAME', audience: 'hook', meaning: "The hook's `name`." },
  {
    name: 'RALPH_HOOK_PHASE_EVENT',
    audience: 'hook',
    meaning: 'The phase-event it runs at (`pre.loop.start`, `post.iteration.start`, …).',
  },
  // Between Ralph's own processes.
  { name: 'RALPH_PARALLEL_WORKER', audience: 'internal', meaning: 'In a `--parallel` worker: its name.' },
  { name: 'RALPH_PARALLEL_TASK', audience: 'internal', meaning: "In a `--parallel` worker: its task's id." },
  {
    name: 'RALPH_WORKER_SECRETS',
    audience: 'internal',
    meaning:
      "The config's secret values a `--parallel` worker needs, passed in its environment instead of its spec file.",
  },
  // Ralph's own tests (never passed on to an agent).
  {
    name: 'RALPH_FAULT_*',
    audience: 'testing',
    meaning:
      'Fault injection at the N-th durable write (kill, signal, errno, a write trace): CONTRIBUTING.md.',
  },
];

const SECTIONS: { audience: EnvAudience; title: string; intro: string }[] = [
  { audience: 'you', title: 'Set by you', intro: 'Read by Ralph; each wins over the config key it names.' },
  {
    audience: 'agent',
    title: 'Given to every agent',
    intro:
      'Set by Ralph for the agent process and everything it starts ([agent environment](../concepts/agent-environment.md)).',
  },
  {
    audience: 'notify',
    title: 'Given to `notify.command`',
    intro: 'Set by Ralph for the notification command ([notifications](../operations/notifications.md)).',
  },
  {
    audience: 'internal',
    title: "Between Ralph's own processes",
    intro: 'Set by Ralph for the processes it starts itself; not for you to set.',
  },
  { audience: 'testing', title: "Ralph's own tests", intro: 'Never passed on to an agent.' },
];

/** docs/reference/environment.md. */
export function environmentReference(): string {
  const parts = [
    '<!-- Generated by `npm run docs` from src/config/reference/environment.ts; do not edit. -->',
    '',
    '# Environment variables',
    '',
    'Every `RALPH_*` variable Ralph reads or sets. Others it honours: `NO_COLOR` and `FORCE_COLOR`',
    '([CLI reference](cli.md)), `XDG_CONFIG_HOME`, `XDG_CACHE_HOME` and `XDG_STATE_HOME` (where the user',
    'config, the caches and the run registry live), `GITHUB_TOKEN`/`GH_TOKEN` and `GITHUB_API_URL`',
    '([forge](../operations/forge.md)), and each backend its own ([backends](backends.md)).',
  ];
  for (const s of SECTIONS) {
    parts.push('', `## ${s.title}`, '', s.intro, '', '| variable | meaning |', '|---|---|');
    for (const v of ENVIRONMENT.filter((e) => e.audience === s.audience))
      parts.push(`| \`${v.name}\` | ${v.meaning.replace(/\|/g, '\\|')} |`);
  }
  return `${parts.join('\n')}\n`;
}
