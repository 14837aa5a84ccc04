import { z } from 'zod';
import { DEFAULT_HUMAN_ANSWER, NOTIFY_KINDS, REDIS_URL, WEBHOOK_FORMATS } from './operations-values.ts';
import { positive, positiveInt } from './values.ts';

/** An http(s) URL (a webhook, an API base). */
const httpUrl = z.string().regex(/^https?:\/\/[^\s]+$/, { error: 'must be an http:// or https:// URL' });

/** `human`: a human in the loop (`ralph ask`, `human.interact`, approvals): how long to wait and what then. */
export const humanSchema = z
  .strictObject({
    default_answer: z
      .string()
      .min(1)
      .default(DEFAULT_HUMAN_ANSWER)
      .meta({ description: 'What `ralph ask` prints when nobody answered in time, so the agent can go on.' }),
    on_timeout: z.enum(['stop', 'continue']).default('stop').meta({
      description:
        'Nobody answered a question or approval in time: `stop` the run (resumable) or `continue`.',
    }),
    timeout_seconds: z.number().min(0).default(3600).meta({
      description:
        'Seconds to wait for an answer or approval. 0: no time limit (the runtime limit still applies).',
    }),
  })
  .meta({
    description:
      'A human in the loop (docs/operations/human-in-the-loop.md): how long to wait for one, and what then.',
  });

/** `notify`: where notifications go. */
export const notifySchema = z
  .strictObject({
    command: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'Run (`sh -c`) with the notification as JSON on stdin and `RALPH_NOTIFY_KIND`, `RALPH_NOTIFY_RUN_ID`, `RALPH_NOTIFY_MESSAGE`, `RALPH_NOTIFY_WORKSPACE` set. Absent: no command.',
        examples: ['notify-send "ralph: $RALPH_NOTIFY_MESSAGE"'],
      }),
    webhook: httpUrl.optional().meta({
      description:
        'An http(s) URL POSTed the same JSON; retried, never blocking the loop. Absent: no webhook.',
      examples: ['https://hooks.example.com/ralph'],
    }),
    webhook_format: z.enum(WEBHOOK_FORMATS).default('json').meta({
      description:
        'The body of the webhook POST: `json` (the notification document), `slack` (`{text}` for a Slack incoming webhook) or `discord` (`{content}` for a Discord webhook).',
    }),
    on: z
      .array(z.enum(NOTIFY_KINDS))
      .default([...NOTIFY_KINDS])
      .meta({ description: 'What to notify about. Default: all of them.' }),
  })
  .meta({
    description: 'Notifications when a run stops, asks, waits for approval, parks, resumes or nears a limit.',
  });

/** ralph-orchestrator's Telegram human-in-the-loop (`RObot`), same keys (docs/operations/telegram.md). */
export const robotSchema = z
  .strictObject({
    enabled: z.boolean().default(false).meta({
      description:
        'The human on Telegram: questions and approvals go to the chat (options as buttons), replies answer them, other messages are guidance; `/status`, `/stop`, `/pause`, `/resume`, `/tail`; notifications as messages. Needs a bot token (`RObot.telegram.bot_token` or `RALPH_TELEGRAM_BOT_TOKEN`).',
    }),
    timeout_seconds: positive.optional().meta({
      description:
        'Seconds to wait for an answer while Telegram is on (instead of `human.timeout_seconds`); then `human.on_timeout` applies. Absent: `human.timeout_seconds`.',
    }),
    checkin_interval_seconds: positive.optional().meta({
      description:
        "Send the loop's status to the chat this often while it runs (as `/status` answers). Absent: no check-ins.",
    }),
    telegram: z
      .strictObject({
        bot_token: z.string().min(1).optional().meta({
          description:
            "The bot's token from @BotFather. `RALPH_TELEGRAM_BOT_TOKEN` wins (keep tokens out of files you commit). Never logged.",
        }),
        api_url: httpUrl.optional().meta({
          description:
            'Base URL of the Bot API. `RALPH_TELEGRAM_API_URL` wins. Absent: https://api.telegram.org.',
          examples: ['https://api.telegram.org'],
        }),
      })
      .default({})
      .meta({ description: 'The Telegram bot: its token and the Bot API it talks to.' }),
  })
  .meta({
    description:
      "ralph-orchestrator's `RObot`: a human in the loop on Telegram (docs/operations/telegram.md). Off by default.",
  });

/** `merge`: the merge queue of `--parallel`. */
export const mergeSchema = z
  .strictObject({
    max_attempts: positiveInt.default(3).meta({
      description:
        'Merge attempts of one task (a conflict its resolving iteration did not fix, gates failing on the rebased tree) before its worktree is kept for a person (`needs_review`).',
    }),
    via: z.enum(['fast_forward', 'pull_request']).default('fast_forward').meta({
      description:
        "How a finished task lands on the target once its rebased tree passed the gates. fast_forward: the target is fast-forwarded in this checkout. pull_request: the task's branch `ralph/<task-id>` is pushed to `git.remote` (a GitHub remote, as `forge`), a pull request opened (title: the task; body: the task, gates, cost), and the queue waits for its merge (polled once a minute, `ralph resume` polls at once) before the next merge; the target then follows the remote's. Closed unmerged: the task is failed. Token and API base as `forge` (docs/operations/forge.md).",
    }),
  })
  .meta({ description: 'The merge queue of `ralph run --parallel N` (docs/guide/parallel.md).' });

/** `logs`: what Ralph's own files keep, bounded per iteration and per workspace. */
export const logsSchema = z
  .strictObject({
    max_output_mb: z.number().min(0).default(16).meta({
      description:
        "Agent output kept per iteration in the run log, in MB: the first half and the last half, with `… 287.3 MB of agent output cut here (logs.max_output_mb: 16) …` between them; cuts fall on line ends. The tail is held in memory and written when the output is over (at the first gate or the end of the iteration), so `ralph logs -f` pauses after the head. The console (`-v`), the TUI and the dashboard show 1 MB of its text per iteration, cut the same way. Tokens, cost and the completion promise are read from every line. A gate command's output (tests, validate) is cut the same way per gate run (`… of tests output cut here …`); its record and report keep the last 16 KB of each stream. 0: keep all of it.",
    }),
    keep_logs: z
      .int()
      .min(0)
      .default(50)
      .meta({
        description:
          "Run logs kept in `.ralph/logs` (`YYYY-MM-DD_NNN.log`, what `ralph logs` shows): at each start, once the run's first agent is running, the least recently written beyond this many are deleted, never the current run's log, never anything but a `.log` file directly in `.ralph/logs`. The same bound applies to the worker logs of `ralph run --parallel` (`.ralph/parallel/logs/<task-id>.log`, pruned each time a worker starts; a live worker's log is kept). With `max_output_mb` this bounds the directory (about keep_logs × iterations × max_output_mb at worst). 0: keep every log.",
        examples: [50, 200],
      }),
    keep_runs: z.int().min(0).default(20).meta({
      description:
        'Run directories kept under `.ralph/runs` (iteration records and event stream): at each start, once the first agent is running, the least recently written beyond this many are deleted, never the current run, never anything but a directory in `.ralph/runs` (the logs stay). 0: keep every run.',
    }),
  })
  .meta({ description: "What Ralph's own files keep, bounded per iteration and per workspace." });

/** `fleet`: where the fleet's Redis is and its fleet-wide limits. */
export const fleetSchema = z
  .strictObject({
    redis: z
      .string()
      .regex(REDIS_URL, 'expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379')
      .optional()
      .meta({
        description: "redis:// or rediss:// URL of the fleet's Redis (`--redis` and `RALPH_REDIS_URL` win).",
        examples: ['redis://127.0.0.1:6379'],
      }),
    max_cost_usd: positive.optional().meta({
      description:
        'Fleet-wide cost cap (USD): workers start no new iteration once the whole fleet spent this much.',
    }),
    global_concurrency: positiveInt.optional().meta({
      description:
        'Runs at once across every worker (BullMQ global concurrency). Absent: no fleet-wide limit.',
    }),
  })
  .meta({
    description:
      "`ralph fleet` (docs/operations/fleet.md): where the fleet's Redis is and its fleet-wide limits.",
  });
