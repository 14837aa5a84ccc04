import { z } from 'zod';

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
  'amp',
] as const;
export type AgentCliName = (typeof AGENT_CLI_NAMES)[number];

/** Every `cli.backend` value: `auto`, the agent CLIs, `custom` (any command) and `fake` (scripted agent). */
export const BACKEND_NAMES = ['auto', ...AGENT_CLI_NAMES, 'custom', 'fake'] as const;
/** A `cli.backend` value: one of {@link BACKEND_NAMES}. */
export type BackendName = (typeof BACKEND_NAMES)[number];

/** Names people try that Ralph cannot drive, with what to do instead. */
const UNSUPPORTED_BACKENDS: Record<string, string> = {
  kiro: 'Ralph has no headless driver for kiro-cli; run it with cli.backend: custom and cli.command: kiro-cli',
};

/** A backend name, with an error that lists the valid names (and says why a known-unsupported one is refused). */
const backendName = z.enum(BACKEND_NAMES, {
  error: (issue) => {
    const input = String(issue.input);
    const why = UNSUPPORTED_BACKENDS[input];
    return why
      ? `backend "${input}" is not supported: ${why}`
      : `unknown backend "${input}"; use one of ${BACKEND_NAMES.join(', ')}`;
  },
});

const positive = z.number().positive();
const positiveInt = z.int().positive();
const stringOrList = z.union([z.string(), z.array(z.string())]);

export const eventLoopSchema = z.strictObject({
  /** Prompt file used when neither -P nor -p is given. */
  prompt_file: z.string().min(1).optional(),
  /** Inline prompt text (lower priority than -p / -P). */
  prompt: z.string().min(1).optional(),
  completion_promise: z.string().min(1).default('LOOP_COMPLETE'),
  max_iterations: positiveInt.default(100),
  max_runtime_seconds: positive.default(14_400),
  max_cost_usd: positive.optional(),
  max_tokens: positiveInt.optional(),
  max_consecutive_failures: positiveInt.default(3),
  iteration_timeout_seconds: positive.default(1800),
  idle_timeout_seconds: positive.default(600),
  /** A silent agent gets a console line ("agent running 2m10s, last output 45s ago") at most this often. */
  heartbeat_seconds: positive.default(60),
  cooldown_delay_seconds: z.number().min(0).default(0),
  /** Seconds between SIGTERM and SIGKILL when Ralph stops an agent's process group. */
  kill_grace_seconds: positive.default(3),
  starting_event: z.string().min(1).optional(),
  /** ralph-orchestrator's older form of starting_event: the first iteration runs this hat (its first trigger is published). */
  starting_hat: z.string().min(1).optional(),
  persistent: z.boolean().default(false),
  /**
   * Persistent mode: while idle, wait for a change to a path these patterns select (or a new event)
   * before calling the agent. Path patterns as in gates.protect (`inbox`, `work/*.txt`).
   */
  idle_watch: z.array(z.string().min(1)).default([]),
  required_events: z.array(z.string()).default([]),
  /** The agent's last line (or last event) saying this stops the loop as cancelled (exit 0, not completed). */
  cancellation_promise: z.string().min(1).optional(),
  /**
   * Stop `no_progress` after this many finished iterations in a row that changed no file, made no
   * commit, moved no task or checklist item and published no event (0: never).
   */
  max_idle_iterations: z.int().min(0).default(5),
  /** `retry`: a timed-out iteration counts as a failure; `stop`: it is fatal (seed 002). */
  on_iteration_timeout: z.enum(['retry', 'stop']).default('retry'),
});

export const cliSchema = z.strictObject({
  backend: backendName.default('auto'),
  /** Executable of cli.backend: required for `custom`, replaces the CLI's own name for the others. */
  command: z.string().min(1).optional(),
  /** Extra arguments given to the agent (before the prompt, for `custom`). */
  args: z.array(z.string()).default([]),
  prompt_mode: z.enum(['stdin', 'arg']).default('stdin'),
  /** Flag placed before the prompt when `prompt_mode: arg` (e.g. `-p`); omit for a bare argument. */
  prompt_flag: z.string().min(1).optional(),
  /** How the agent's stdout is read: plain text, or Claude-style stream-json lines. */
  output_format: z.enum(['text', 'stream-json']).default('text'),
  /** Script for the `fake` backend (path relative to the workspace). */
  fake_script: z.string().min(1).optional(),
  /** Model name passed to backends that take one. */
  model: z.string().min(1).optional(),
  /** Extra environment for the agent process. */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * Backends to run on, in order, while the primary is parked on a usage limit that resets later
   * than `fallback_after_seconds`; Ralph returns to the primary after its reset.
   */
  fallback: z.array(backendName).default([]),
  fallback_after_seconds: z.number().min(0).default(300),
  /** ralph-orchestrator's mode key: `ralph run` is always autonomous (`ralph plan` is the interactive session). */
  default_mode: z
    .literal('autonomous', {
      error:
        'ralph run is always autonomous; for an interactive session use `ralph plan` (remove cli.default_mode or set it to autonomous)',
    })
    .optional(),
});

export const hatSchema = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  triggers: z.array(z.string().min(1)).default([]),
  publishes: z.array(z.string().min(1)).default([]),
  default_publishes: stringOrList.optional(),
  instructions: z.string().default(''),
  extra_instructions: z.array(z.string()).default([]),
  /** The backend this hat runs on (default: cli.backend); it runs that CLI's own executable, without cli.command, cli.args or cli.model. */
  backend: backendName.optional(),
  /** Executable for this hat's backend (over cli.command and the CLI's own name); needed for `backend: custom` unless cli.backend is custom. */
  command: z.string().min(1).optional(),
  /** Arguments for this hat's agent (before the prompt, for `custom`). */
  args: z.array(z.string()).optional(),
  backend_args: z.array(z.string()).optional(),
  max_activations: positiveInt.optional(),
  /** Per-hat iteration timeout in seconds (overrides event_loop.iteration_timeout_seconds). */
  timeout: positive.optional(),
  disallowed_tools: z.array(z.string()).default([]),
  scratchpad: z
    .union([z.string(), z.strictObject({ enabled: z.boolean().default(true), path: z.string().optional() })])
    .optional(),
});

export const tasksSchema = z.strictObject({
  enabled: z.boolean().default(true),
});

export const memoriesSchema = z.strictObject({
  enabled: z.boolean().default(true),
  inject: z.enum(['auto', 'manual', 'none']).default('auto'),
  budget: z.int().min(0).default(2000),
  /** Which memories go into the prompt: only these types, only entries with any of these tags, only the `recent` newest (0: all). */
  filter: z
    .strictObject({
      types: z.array(z.enum(['pattern', 'decision', 'fix', 'context'])).default([]),
      tags: z.array(z.string().min(1)).default([]),
      recent: z.int().min(0).default(0),
    })
    .optional(),
});

export const coreSchema = z.strictObject({
  scratchpad: z
    .union([z.string(), z.strictObject({ enabled: z.boolean().default(true), path: z.string().optional() })])
    .optional(),
  specs_dir: z.string().optional(),
  /** Rules put into every prompt as a numbered `## Guardrails` list. */
  guardrails: z.array(z.string().min(1)).default([]),
});

export const eventMetaSchema = z.strictObject({
  description: z.string().default(''),
  on_trigger: z.string().default(''),
  on_publish: z.string().default(''),
});

/** ralph-orchestrator's Telegram human-in-the-loop: accepted only switched off (seed 000 has `enabled: false`). */
export const robotSchema = z.strictObject({
  enabled: z
    .literal(false, {
      error:
        'human-in-the-loop via Telegram (RObot) is not supported by Ralph; set RObot.enabled: false or remove the section — for a human in the loop use `ralph ask`/`ralph answer`, review points and `notify` (docs/operations/human-in-the-loop.md)',
    })
    .default(false),
  timeout_seconds: positive.optional(),
  checkin_interval_seconds: positive.optional(),
  telegram: z.strictObject({ bot_token: z.string().optional() }).optional(),
});

export const completionSchema = z.strictObject({
  /** Complete when this file contains this text, checked by Ralph after every iteration (and at start). */
  marker: z.strictObject({ file: z.string().min(1), text: z.string().min(1) }).optional(),
  /** A design document with `## Milestone N: …` sections and `- [ ]` tasks, parsed by Ralph (seed 003). */
  checklist: z.string().min(1).optional(),
  /** With a checklist: `all_tasks` (default), `milestone` (the current one), or `promise` (the agent's last line). */
  condition: z.enum(['all_tasks', 'milestone', 'promise']).optional(),
  /** The promise for `condition: promise` (default: event_loop.completion_promise). */
  promise: z.string().min(1).optional(),
  /** Refuse completion from a run that changed no file and made no commit (default: git.commit). */
  require_work: z.boolean().optional(),
});

export const contextSchema = z.strictObject({
  /** A journal file whose newest entries (`## …` headings) go into each prompt's context block. */
  journal: z.string().min(1).optional(),
  journal_entries: z.int().min(0).default(5),
  /** Write `## --- Iteration N Start (ts) ---` into the journal before each iteration. */
  iteration_markers: z.boolean().default(false),
});

export const TDD_REPORT_SECTIONS = [
  'Iteration',
  'Status',
  'Actions',
  'Changes',
  'Tests',
  'Current state',
  'Next',
  'Notes',
] as const;

export const tddSchema = z.strictObject({
  /** Goal / Current task / Constraints (+ the history Ralph appends); restored from the last good copy if corrupted. */
  state_file: z.string().min(1).default('loop/state.md'),
  /** The agent's report of each iteration; Ralph checks its required sections. */
  report_file: z.string().min(1).default('loop/last_output.md'),
  required_sections: z.array(z.string().min(1)).default([...TDD_REPORT_SECTIONS]),
  /** A report missing sections this many iterations in a row counts as a failed iteration. */
  report_misses_before_failure: positiveInt.default(2),
  /** The same failing-test signature this many iterations in a row stops the loop as stuck. */
  stuck_iterations: positiveInt.default(50),
  /** Move old reports to archive_dir after this many iterations. */
  archive_after: positiveInt.default(100),
  archive_dir: z.string().min(1).default('loop/archive'),
  /** Paths the agent may change (path patterns as in gates.protect); anything else is a scope violation (empty: no check). */
  allowed_paths: z.array(z.string().min(1)).default([]),
});

/** Where a run waits for a human's approval (`gates.approval`). */
export const APPROVAL_POINTS = ['before_commit', 'before_push', 'before_complete'] as const;

export const gatesSchema = z.strictObject({
  /**
   * Command run after each iteration (sh -c, in the workspace); non-zero is fatal. Default: run
   * `.ralph/validate.sh` when it exists and is executable; `false` turns that off.
   */
  validate: z.union([z.string().min(1), z.literal(false)]).optional(),
  validate_timeout_seconds: positive.default(600),
  /** The project's tests, run after each iteration; the result is recorded (and published as an event). */
  tests: z
    .strictObject({
      command: z.string().min(1),
      timeout_seconds: positive.default(300),
      report_file: z.string().min(1).optional(),
    })
    .optional(),
  /**
   * Files the agent must not change: path patterns (picomatch globs from the workspace root, `dot:
   * true`; a matched directory covers its files; `!pattern` takes back; see config/path-patterns.ts).
   * Default: .ralph/validate.sh, CI configs and the files the test/validate commands name. Hashed at
   * run start (a pattern that selects no file is warned about); an iteration that touches one is
   * `gate_tampered`: not committed, a failed iteration, and its gates run from the protected content.
   */
  protect: z.array(z.string().min(1)).optional(),
  /**
   * A second opinion: another backend reviews the diff since the run started against the task,
   * before completion is accepted (`when: complete`) or after every iteration (`every`).
   */
  review: z
    .strictObject({
      backend: backendName,
      prompt_file: z.string().min(1).optional(),
      when: z.enum(['complete', 'every']).default('complete'),
      max_rounds: positiveInt.default(3),
    })
    .optional(),
  /** Review points where the run waits for `ralph approve` / `ralph reject "why"`. */
  approval: z.union([z.enum(APPROVAL_POINTS), z.array(z.enum(APPROVAL_POINTS))]).optional(),
});

/** A human in the loop (`ralph ask`, `human.interact`, approvals): how long to wait and what then. */
export const humanSchema = z.strictObject({
  /** What `ralph ask` prints when nobody answered in time, so the agent can go on. */
  default_answer: z
    .string()
    .min(1)
    .default(
      'No human answered in time. Proceed with your best judgement and note the assumption in the scratchpad.',
    ),
  /** Nobody answered a question or approval in time: `stop` the run (resumable) or `continue`. */
  on_timeout: z.enum(['stop', 'continue']).default('stop'),
  /** How long to wait for a human (0: no time limit; the runtime limit still applies). */
  timeout_seconds: z.number().min(0).default(3600),
});

/** What a notification can be about. */
export const NOTIFY_KINDS = [
  'stopped',
  'question',
  'approval',
  'parked',
  'resumed',
  'limit_warning',
] as const;

export const notifySchema = z.strictObject({
  /** Run (sh -c) with the notification as JSON on stdin and RALPH_NOTIFY_* variables. */
  command: z.string().min(1).optional(),
  /** POSTed the same JSON; retried, never blocking the loop. */
  webhook: z
    .string()
    .regex(/^https?:\/\/[^\s]+$/, { error: 'must be an http:// or https:// URL' })
    .optional(),
  on: z.array(z.enum(NOTIFY_KINDS)).default([...NOTIFY_KINDS]),
});

export const healthSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Below this much free disk space: a warning; none at all: fatal. */
  min_free_disk_mb: positive.default(1024),
  /** Require a git repository (fatal when missing). Default: when git.commit is on. */
  require_git: z.boolean().optional(),
  /** Directory that must be readable before each iteration (e.g. specs). */
  specs_dir: z.string().min(1).optional(),
});

export const gitSchema = z.strictObject({
  /** Commit what each successful iteration changed (`ralph: <task>` + details). */
  commit: z.boolean().default(false),
  /** Push the current branch after each commit: 3 attempts 5 s apart, then fatal. */
  push: z.boolean().default(false),
  remote: z.string().min(1).default('origin'),
  push_attempts: positiveInt.default(3),
  push_retry_delay_seconds: z.number().min(0).default(5),
  /** Refuse to start (or continue) with uncommitted changes. Default: when commit is on. */
  require_clean: z.boolean().optional(),
});

export const mergeSchema = z.strictObject({
  /**
   * `--parallel`: merge attempts of one task (a conflict its resolving iteration did not fix, gates
   * failing on the rebased tree) before its worktree is kept for a person (`needs_review`).
   */
  max_attempts: positiveInt.default(3),
});

/** What Ralph's own files keep (DESIGN.md §1 "Files"): bounded per iteration and per workspace. */
export const logsSchema = z.strictObject({
  /**
   * Agent output kept per iteration (MB): its first and last halves, with a marker saying how much
   * was cut between them, in the run log; the text shown by the console, the TUI and the dashboard
   * is cut the same way. Tokens and cost are read from every line. 0: keep everything.
   */
  max_output_mb: z.number().min(0).default(16),
  /**
   * Run directories kept under .ralph/runs (records and event stream), the newest first; older ones
   * are deleted when a run starts. The current run always stays. 0: keep every run.
   */
  keep_runs: z.int().min(0).default(20),
});

/** What a Redis URL looks like (`fleet.redis`, `--redis`, RALPH_REDIS_URL). */
export const REDIS_URL = /^rediss?:\/\/./;

/** `ralph fleet` (DESIGN.md §5): where the fleet's Redis is and its fleet-wide limits. */
export const fleetSchema = z.strictObject({
  /** redis:// or rediss:// URL of the fleet's Redis (`--redis` and RALPH_REDIS_URL win). */
  redis: z
    .string()
    .regex(REDIS_URL, 'expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379')
    .optional(),
  /** Fleet-wide cost cap (USD): workers start no new iteration once the whole fleet spent this much. */
  max_cost_usd: positive.optional(),
  /** Runs at once across every worker (BullMQ global concurrency). */
  global_concurrency: positiveInt.optional(),
});

/**
 * The schema of ralph.yml (zod, every key described; `ralph config schema` prints it as JSON Schema).
 * `configSchema.parse(value)` fills in every default and throws on an unknown key; `loadConfig`
 * adds the file layers and `file:line:col` to every problem.
 */
export const configSchema = z.strictObject({
  /**
   * Workers of `ralph run` (as `--parallel N`): each takes one ready task in a git worktree of its
   * own, and a merge queue brings finished tasks onto the current branch. 1: one loop, as usual.
   */
  parallel: positiveInt.default(1),
  merge: mergeSchema.default(mergeSchema.parse({})),
  event_loop: eventLoopSchema.default(eventLoopSchema.parse({})),
  cli: cliSchema.default(cliSchema.parse({})),
  hats: z.record(z.string().min(1), hatSchema).default({}),
  tasks: tasksSchema.default(tasksSchema.parse({})),
  memories: memoriesSchema.default(memoriesSchema.parse({})),
  RObot: robotSchema.default(robotSchema.parse({})),
  core: coreSchema.default(coreSchema.parse({})),
  completion: completionSchema.default(completionSchema.parse({})),
  context: contextSchema.default(contextSchema.parse({})),
  /** The TDD state loop (seed 004); present only in configs that use it. */
  tdd: tddSchema.optional(),
  gates: gatesSchema.default(gatesSchema.parse({})),
  health: healthSchema.default(healthSchema.parse({})),
  git: gitSchema.default(gitSchema.parse({})),
  events: z.record(z.string().min(1), eventMetaSchema).default({}),
  human: humanSchema.default(humanSchema.parse({})),
  notify: notifySchema.default(notifySchema.parse({})),
  fleet: fleetSchema.default(fleetSchema.parse({})),
  logs: logsSchema.default(logsSchema.parse({})),
});

/** The fully resolved configuration (every default filled in). */
export type RalphConfig = z.output<typeof configSchema>;
export type RalphConfigInput = z.input<typeof configSchema>;
/** One hat of `hats:` as resolved (triggers, publishes, instructions, its backend), defaults filled in. */
export type HatConfig = z.output<typeof hatSchema>;
export type ApprovalPointName = (typeof APPROVAL_POINTS)[number];
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

/** The review points of `gates.approval` as a list. */
export function approvalPoints(config: Pick<RalphConfig, 'gates'>): ApprovalPointName[] {
  const a = config.gates.approval;
  return a === undefined ? [] : Array.isArray(a) ? a : [a];
}
