import { z } from 'zod';
import {
  AGENT_CLI_NAMES,
  backendName,
  modelLadder,
  PATH_PATTERNS_LINK,
  pathPatterns,
  positive,
  positiveInt,
} from './values.ts';

/** `event_loop`: the prompt, the completion promise and every limit of a run. */
export const eventLoopSchema = z
  .strictObject({
    prompt_file: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'Prompt file (relative to the workspace; read from the preset when the workspace lacks it) used when neither `-P FILE`, `-p TEXT` nor `prompt` is given. Absent: `PROMPT.md`.',
        examples: ['PROMPT.md'],
      }),
    prompt: z.string().min(1).optional().meta({
      description:
        'Inline prompt text, used when neither `-p` nor `-P` is given; it wins over `prompt_file`.',
    }),
    completion_promise: z.string().min(1).default('LOOP_COMPLETE').meta({
      description:
        "The line that completes the loop: the agent's final result (never an echo of the prompt) saying it, with every other completion condition met.",
    }),
    max_iterations: positiveInt.default(100).meta({
      description: 'Stop (exit 2) after this many iterations; `ralph run N` and `--max-iterations N` set it.',
      examples: [20],
    }),
    max_runtime_seconds: positive.default(14_400).meta({
      description:
        'Total runtime in seconds, summed across resumes; enforced during an iteration (and a `gates.review` turn) too: the agent is killed when it is reached (exit 2).',
    }),
    max_cost_usd: positive.optional().meta({
      description:
        'Cost cap in USD: the loop stops (exit 2) as soon as the streamed cost reaches it (the agent, or the reviewer, is killed mid-turn), and an iteration projected to cross it is not started. Absent: no cost cap.',
      examples: [5],
    }),
    max_tokens: positiveInt.optional().meta({
      description:
        'Token cap (input + output + cache tokens), enforced like `max_cost_usd`. Absent: no token cap.',
    }),
    max_consecutive_failures: positiveInt.default(3).meta({
      description:
        'Failed iterations in a row before the loop stops (exit 1). A failed iteration is a non-zero exit, a crash (signal), an error `result`, or a timeout.',
    }),
    iteration_timeout_seconds: positive.default(1800).meta({
      description:
        "Seconds one iteration may run before Ralph kills the agent's process group (a failed iteration, see `on_iteration_timeout`); `hats.<hat>.timeout` overrides it per hat.",
    }),
    idle_timeout_seconds: positive.default(600).meta({
      description: 'Seconds the agent may print nothing before Ralph kills it (a failed iteration).',
    }),
    heartbeat_seconds: positive.default(60).meta({
      description:
        'A silent agent gets a console line (`agent running 2m10s, last output 45s ago`) at most this often, in seconds.',
    }),
    cooldown_delay_seconds: z.number().min(0).default(0).meta({
      description:
        'Seconds to pause: in solo mode between iterations; with hats only before an idle rescan (never between hat-to-hat hand-offs). 0: no pause.',
    }),
    kill_grace_seconds: positive.default(3).meta({
      description:
        "Seconds between SIGTERM and SIGKILL when Ralph stops an agent's process group (the sweep of escaped processes waits `min(kill_grace_seconds, 1)`).",
    }),
    starting_event: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'The first event of a run with hats (absent: `task.start`, or the first exact trigger of `starting_hat`). Must be a trigger of some hat.',
        examples: ['work.start'],
      }),
    starting_hat: z.string().min(1).optional().meta({
      description:
        "ralph-orchestrator's older form of `starting_event`: the run starts with the first exact trigger of this hat. Not together with `starting_event`.",
    }),
    persistent: z.boolean().default(false).meta({
      description:
        'Persistent mode: completion becomes an idle `task.resume` instead of stopping the loop; when the board is idle Ralph waits (see `idle_watch`, `cooldown_delay_seconds`) instead of calling the agent.',
    }),
    idle_watch: pathPatterns.default([]).meta({
      description: `Persistent mode: while idle, wait for a change to a path these ${PATH_PATTERNS_LINK} select (or a new event) before calling the agent again. Empty: the idle loop waits for the cooldown or a new event.`,
      examples: [['inbox', 'work/*.txt']],
    }),
    required_events: z
      .array(z.string())
      .default([])
      .meta({
        description: 'Topics that must have been seen in the run before completion is accepted.',
        examples: [['tests.passed']],
      }),
    cancellation_promise: z.string().min(1).optional().meta({
      description:
        "The agent's last line (or last event) equal to this stops the loop as `cancelled` (exit 0, not completed); an echo of the prompt never counts. Absent: no cancellation by the agent.",
    }),
    max_idle_iterations: z.int().min(0).default(5).meta({
      description:
        'Stop `no_progress` (exit 1) after this many finished iterations in a row that changed no file, made no commit, moved no task or checklist item and published no event. 0: never.',
    }),
    on_iteration_timeout: z.enum(['retry', 'stop']).default('retry').meta({
      description:
        '`retry`: a timed-out iteration counts as a failed iteration; `stop`: it ends the loop (exit 1; the `spec` preset uses it).',
    }),
  })
  .meta({
    description:
      "The loop: prompt, completion promise and limits. ralph-orchestrator's keys Ralph has no use for (`checkpoint_interval`, `idle_timeout_secs`, `enforce_hat_scope` …) are ignored with a warning (docs/reference/ralph-orchestrator.md).",
  });

/** `cli`: which agent CLI runs and how it is invoked. */
export const cliSchema = z
  .strictObject({
    backend: backendName.default('auto').meta({
      description:
        // The names from the one list (AGENT_CLI_NAMES), in its order: `auto`'s order.
        `The agent CLI (docs/reference/backends.md): ${AGENT_CLI_NAMES.map((n) => `\`${n}\``).join(', ')}, \`custom\` (any command, see \`command\`) or \`fake\` (scripted agent). \`auto\`: the first agent CLI found on PATH, in that order. \`RALPH_AGENT\` overrides it for every command that reads the config (\`ralph run\`, \`config show\`, \`validate\`, \`explain\`, \`doctor\` …), \`-b\` for a run or a plan. ralph-orchestrator's \`kiro\`, \`kiro-acp\`, \`roo\` and \`forge\` run as \`custom\` with the command ralph-orchestrator gives them (\`kiro-cli chat --no-interactive --trust-all-tools\`, \`roo --print --ephemeral\`, \`forge -p\`; the prompt last, the output read as text) unless \`cli.command\` is set; as a hat's backend they are rejected, the error giving that \`custom\` command.`,
      examples: ['claude'],
    }),
    command: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          "Executable of `cli.backend`: required for `custom`; for an agent CLI it replaces the CLI's own name. `command`, `args` and `model` belong to `cli.backend`: a hat on another backend, a `fallback` and the `gates.review` reviewer run that CLI's own executable from PATH, and when `-b` or `RALPH_AGENT` picks another backend than the config files name, the files' `command`, `args` and `model` are dropped (a `--set cli.command=…` on the same command line still applies). The iteration record keeps the executable that ran, and `ralph explain` shows it when it is not the CLI's own name (`custom (./agent.sh)`).",
        examples: ['/opt/claude/bin/claude'],
      }),
    args: z
      .array(z.string())
      .default([])
      .meta({
        description:
          'Extra arguments given to the agent, before the prompt (arguments after `--` on the command line are added too).',
        examples: [['--verbose']],
      }),
    prompt_mode: z.enum(['stdin', 'arg']).default('stdin').meta({
      description: 'How the prompt reaches the agent: on `stdin`, or as the last argument (`arg`).',
    }),
    prompt_flag: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'With `prompt_mode: arg`, the flag placed before the prompt. Absent: the prompt is a bare argument.',
        examples: ['-p'],
      }),
    output_format: z.enum(['text', 'stream-json']).default('text').meta({
      description:
        "How the agent's stdout is read: plain `text`, or Claude-style `stream-json` lines (usage, cost, result).",
    }),
    fake_script: z.string().min(1).optional().meta({
      description: 'Script of the `fake` backend, relative to the workspace (also `RALPH_FAKE_SCRIPT`).',
    }),
    model: z.string().min(1).optional().meta({
      description:
        "Model passed to backends that take one (every agent CLI and `fake`). Absent: the CLI's own default. Not together with `models`. `custom` refuses it: put the model in `args` (e.g. `[--model, name]`).",
    }),
    models: modelLadder.optional().meta({
      description:
        "A model ladder, cheapest first (docs/concepts/models.md): iterations start on the first model and move one rung up after `escalate_after` failures in a row, a stuck signature, a failed gate or a rejected completion on the same task (milestone, else the whole run); `descend_after` successes move back down. Only for backends whose CLI takes a model (all agent CLIs and `fake`; Amp's rungs are its modes); `custom` refuses it. Not together with `model`.",
      examples: [['haiku', 'sonnet', 'opus']],
    }),
    escalate_after: positiveInt.default(2).meta({
      description:
        'With `models`: failed iterations in a row on the same task that move the next iteration one rung up (a stuck signature, a failed gate or a rejected completion moves it at once).',
    }),
    descend_after: positiveInt.optional().meta({
      description:
        'With `models`: successful iterations in a row on the same task after which the next one moves one rung down. Absent: never down (a task stays on the rung that worked).',
    }),
    env: z
      .record(z.string(), z.string())
      .default({})
      .meta({
        description:
          'Extra environment variables for the agent process, on top of the agent environment (docs/concepts/agent-environment.md).',
        examples: [{ ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080' }],
      }),
    fallback: z
      .array(backendName)
      .default([])
      .meta({
        description:
          'Backends to run on, in order, while the primary is parked on a usage limit that resets later than `fallback_after_seconds`; Ralph returns to the primary after its reset. `custom` can be a fallback only when it is `cli.backend`.',
        examples: [['codex', 'gemini']],
      }),
    fallback_after_seconds: z.number().min(0).default(300).meta({
      description:
        'Only a usage limit that resets later than this many seconds switches to a `fallback`; a sooner one is waited out.',
    }),
    default_mode: z
      .literal('autonomous', {
        error:
          'ralph run is always autonomous; for an interactive session use `ralph plan` (remove cli.default_mode or set it to autonomous)',
      })
      .optional()
      .meta({
        description:
          "ralph-orchestrator's mode key, accepted only as `autonomous` (what `ralph run` is); `interactive` is rejected: use `ralph plan`.",
      }),
  })
  .meta({
    description:
      "The agent CLI and how it is invoked. ralph-orchestrator's `cli.idle_timeout_secs`, `pty_mode` and `pty_interactive` are ignored with a warning (docs/reference/ralph-orchestrator.md).",
  });
