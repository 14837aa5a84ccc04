import { z } from 'zod';
import {
  backendName,
  modelLadder,
  positive,
  positiveInt,
  scratchpadSetting,
  stringOrList,
} from './values.ts';

/** One hat of `hats:`: what activates it, what it publishes, its instructions and its backend. */
export const hatSchema = z
  .strictObject({
    import: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          "A YAML file of one hat's keys (relative to the file that says it) that this hat takes; the keys the hat sets itself win, key by key. The file may hold neither `import` nor `events`. Resolved when the config is read.",
        examples: ['hats/builder.yml'],
      }),
    name: z.string().min(1).optional().meta({
      description:
        "Display name of the hat (in the prompt's hat heading and `ralph explain`). Absent: the hat's id.",
    }),
    description: z.string().optional().meta({
      description: "What the hat is for; shown above the hat's instructions in the prompt.",
    }),
    triggers: z
      .array(z.string().min(1))
      .default([])
      .meta({
        description:
          'Event topics that activate the hat (exact, or a `*` glob); the first hat whose trigger matches a pending event runs.',
        examples: [['work.start', 'review.*']],
      }),
    publishes: z.array(z.string().min(1)).default([]).meta({
      description: 'Topics the hat may publish (listed in its prompt with `events.<topic>.on_publish`).',
    }),
    default_publishes: stringOrList.optional().meta({
      description:
        'Topic (or topics) published for the hat when its iteration emitted no event. Absent: none.',
    }),
    instructions: z
      .string()
      .default('')
      .meta({ description: "The hat's instructions, put into the prompt when it is active." }),
    extra_instructions: z
      .array(z.string())
      .default([])
      .meta({ description: 'More instruction blocks, appended to `instructions`.' }),
    backend: backendName.optional().meta({
      description:
        "The backend this hat runs on. Absent: `cli.backend`. Another backend runs that CLI's own executable, without `cli.command`, `cli.args` or `cli.model`.",
    }),
    command: z.string().min(1).optional().meta({
      description:
        "Executable of this hat's backend (over `cli.command` and the CLI's own name); required for `backend: custom` unless `cli.backend` is `custom`.",
    }),
    args: z.array(z.string()).optional().meta({
      description:
        "Arguments for this hat's agent (before the prompt, for `custom`). Absent: `backend_args`.",
    }),
    backend_args: z.array(z.string()).optional().meta({
      description: "ralph-orchestrator's name for `args`, used when `args` is absent.",
    }),
    models: modelLadder.optional().meta({
      description:
        "This hat's model ladder, cheapest first (as `cli.models`, with a rung per task of its own). Absent: `cli.models` when the hat runs on `cli.backend`, else its CLI's default model.",
      examples: [['gpt-5-mini', 'gpt-5']],
    }),
    escalate_after: positiveInt.optional().meta({
      description: "This hat's `escalate_after` for its `models`. Absent: `cli.escalate_after`.",
    }),
    descend_after: positiveInt.optional().meta({
      description: "This hat's `descend_after` for its `models`. Absent: `cli.descend_after`.",
    }),
    max_activations: positiveInt.optional().meta({
      description:
        'The hat runs at most this many times in a run; an event that would trigger it after that publishes `<hat>.exhausted` instead. Absent: no limit.',
    }),
    timeout: positive.optional().meta({
      description:
        'Iteration timeout of this hat in seconds. Absent: `event_loop.iteration_timeout_seconds`.',
    }),
    concurrency: positiveInt.optional().meta({
      description:
        'Agent waves: when one iteration of this hat consumes several events (a `ralph wave emit` batch), one agent per event runs, at most this many at once. Absent or 1: one agent gets all the events.',
    }),
    aggregate: z
      .strictObject({
        mode: z.enum(['wait_for_all']).default('wait_for_all').meta({
          description: 'How a wave ends: `wait_for_all` (the only mode) waits for every member of the wave.',
        }),
        timeout: positive.meta({
          description:
            "Seconds a wave whose results this hat collects may run; members still running then are killed (failed) and the finished members' results are kept.",
        }),
      })
      .optional()
      .meta({
        description:
          "Agent waves: on the hat that collects a wave's results (a hat whose triggers match a topic the wave's hat publishes), or on the wave's hat itself. The results reach it together, once the whole wave has ended.",
      }),
    disallowed_tools: z
      .array(z.string())
      .default([])
      .meta({
        description:
          "Tools the hat's agent may not use, named as its CLI names them: `claude` gets `--disallowedTools` (`Bash`, `Bash(git push:*)`), `gemini` a `--policy` file of deny rules under `.ralph/gemini/` (`run_shell_command`), `copilot` `--deny-tool` (`shell`, `write`). Other backends have no such option: `config validate` and `run` fail naming the backend and the key.",
        examples: [['Bash(git push:*)']],
      }),
    scratchpad: scratchpadSetting.optional().meta({
      description: "This hat's own scratchpad (a path, or `{enabled: false}`). Absent: `core.scratchpad`.",
    }),
  })
  .meta({
    description:
      'One hat: the triggers that activate it, what it publishes, its instructions and its backend.',
  });
