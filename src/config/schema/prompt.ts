import { z } from 'zod';
import { scratchpadSetting } from './values.ts';

/** `tasks`: the agent's task list (`.ralph/agent/tasks.jsonl`). */
export const tasksSchema = z
  .strictObject({
    enabled: z.boolean().default(true).meta({
      description:
        'Open tasks block completion and ready tasks go into the prompt. `false`: tasks are ignored.',
    }),
    source: z
      .enum(['file', 'github', 'prd.json', 'beads'])
      .default('file')
      .meta({
        description:
          "`file`: the tasks are what `ralph tools task` keeps in `.ralph/agent/tasks.jsonl`. `github`: also the open issues of the push remote's GitHub repository (pull requests excluded), imported into that file at the start of every run and of every `--parallel` run, as `ralph tools task import --from github` does; when such a task is done, Ralph comments with the commit on its issue and closes it. `prd.json`: also the `userStories` of a snarktank/ralph or ralph-tui `prd.json` (`tasks.prd`), read fresh every iteration: a story with `passes: true` is closed, any other open; `ralph tools task close ID` sets its `passes: true` (the agent may edit the file itself too). `beads`: also the issues of a beads tracker (`bd` or beads-rust's `br`), read fresh every iteration from the JSONL export it keeps in git (`tasks.beads.file`): epics and deleted issues left out, `closed` is closed, `in_progress` in progress, any other status open, `blocks` dependencies block; `ralph tools task start/close/reopen ID` write its status there (bd imports the file again when it is newer than its database).",
        examples: ['github', 'prd.json', 'beads'],
      }),
    prd: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'The prd.json of `tasks.source: prd.json`, relative to the workspace. Absent: `prd.json`.',
        examples: ['scripts/ralph/prd.json'],
      }),
    beads: z
      .strictObject({
        file: z
          .string()
          .min(1)
          .optional()
          .meta({
            description: 'The beads JSONL export, relative to the workspace. Absent: `.beads/issues.jsonl`.',
            examples: ['.beads/beads.jsonl'],
          }),
        epic: z
          .string()
          .min(1)
          .optional()
          .meta({
            description:
              "Only this epic's children (a `parent-child` dependency on it, or an id `<epic>.N`), as ralph-tui's `--epic`. Absent: every issue.",
            examples: ['proj-a3f8'],
          }),
      })
      .optional()
      .meta({
        description:
          'Where `tasks.source: beads` reads the issues and which of them. Absent: every issue of `.beads/issues.jsonl`.',
        examples: [{ epic: 'proj-a3f8' }],
      }),
    github: z
      .strictObject({
        label: z.string().min(1).optional().meta({ description: 'Only open issues with this label.' }),
        milestone: z
          .string()
          .min(1)
          .optional()
          .meta({ description: 'Only open issues in this milestone (its title or number).' }),
      })
      .optional()
      .meta({
        description: 'Which open issues `tasks.source: github` imports. Absent: every open issue.',
        examples: [{ label: 'ralph' }],
      }),
  })
  .refine((t) => t.github === undefined || t.source === 'github', {
    message:
      'tasks.github filters the issues of tasks.source: github; set tasks.source: github or remove tasks.github',
    path: ['github'],
  })
  .refine((t) => t.beads === undefined || t.source === 'beads', {
    message:
      'tasks.beads says where the issues of tasks.source: beads are; set tasks.source: beads or remove tasks.beads',
    path: ['beads'],
  })
  .refine((t) => t.prd === undefined || t.source === 'prd.json', {
    message:
      'tasks.prd names the file of tasks.source: prd.json; set tasks.source: prd.json or remove tasks.prd',
    path: ['prd'],
  })
  .meta({
    description: 'The task list the agent keeps with `ralph tools task` (`.ralph/agent/tasks.jsonl`).',
  });

/** `memories`: what the agent learned, kept across runs (`.ralph/agent/memories.md`). */
export const memoriesSchema = z
  .strictObject({
    enabled: z.boolean().default(true).meta({ description: '`false`: no memories go into the prompt.' }),
    inject: z.enum(['auto', 'manual', 'none']).default('auto').meta({
      description:
        '`auto`: memories go into every prompt (within `budget`); `manual` and `none`: they are not put in the prompt (the agent can still read them with `ralph tools memory`).',
    }),
    budget: z.int().min(0).default(2000).meta({
      description: 'Tokens of memories at most in one prompt.',
    }),
    filter: z
      .strictObject({
        types: z
          .array(z.enum(['pattern', 'decision', 'fix', 'context']))
          .default([])
          .meta({ description: 'Only memories of these types. Empty: every type.' }),
        tags: z
          .array(z.string().min(1))
          .default([])
          .meta({ description: 'Only memories with any of these tags. Empty: any tags.' }),
        recent: z.int().min(0).default(0).meta({ description: 'Only the `recent` newest memories. 0: all.' }),
      })
      .optional()
      .meta({
        description: 'Which memories go into the prompt (within `budget`). Absent: all of them.',
        examples: [{ types: ['decision', 'fix'], recent: 20 }],
      }),
  })
  .meta({
    description:
      'Memories the agent keeps with `ralph tools memory` (`.ralph/agent/memories.md`), kept across runs.',
  });

/** `core`: the scratchpad, the specs directory and guardrails. */
export const coreSchema = z
  .strictObject({
    scratchpad: scratchpadSetting.optional().meta({
      description:
        'The scratchpad, read fresh into each prompt: a path, or `{enabled, path}`. Absent: `.ralph/agent/scratchpad.md`.',
    }),
    specs_dir: z.string().optional().meta({
      description: 'Directory of the specs `ralph plan` works on. Absent: `health.specs_dir`, else `specs`.',
    }),
    guardrails: z
      .array(z.string().min(1))
      .default([])
      .meta({
        description: 'Rules put into every prompt as a numbered `## Guardrails` list.',
        examples: [['Never edit generated files under dist/']],
      }),
  })
  .meta({ description: 'What every prompt carries besides the task: the scratchpad and guardrails.' });

/** `events.<topic>`: what the prompt says about one event topic. */
export const eventMetaSchema = z
  .strictObject({
    description: z.string().default('').meta({
      description:
        "What the event means: shown with it when it reaches a hat and in a hat's publishing line.",
    }),
    on_trigger: z.string().default('').meta({ description: 'Shown under the event when it reaches a hat.' }),
    on_publish: z
      .string()
      .default('')
      .meta({ description: "Shown with the topic in the hat's publishing line." }),
  })
  .meta({ description: 'What the prompt says about one event topic.' });

/** `context`: the journal that goes into each prompt's context block (seed 003). */
export const contextSchema = z
  .strictObject({
    journal: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          "A journal file whose newest entries (`## …` headings) go into each prompt's context block. Absent: no journal.",
        examples: ['PROGRESS.md'],
      }),
    journal_entries: z
      .int()
      .min(0)
      .default(5)
      .meta({ description: 'How many of the newest journal entries go in.' }),
    iteration_markers: z.boolean().default(false).meta({
      description: 'Write `## --- Iteration N Start (ts) ---` into the journal before each iteration.',
    }),
  })
  .meta({ description: "The context block of each prompt: the journal's newest entries." });

/** `progress`: the agent's log of completed work (seed 002's PROGRESS.md) and its monthly archive. */
export const progressSchema = z
  .strictObject({
    file: z.string().min(1).default('PROGRESS.md').meta({
      description: 'The progress log, relative to the workspace.',
    }),
    archive_after_days: z
      .int()
      .min(0)
      .default(0)
      .meta({
        description:
          'Entries (`##`/`###` headings with a `YYYY-MM-DD` date) older than this many days move to `progress/archive/YYYY-MM.md` next to the file, before each iteration. 0: never.',
        examples: [30],
      }),
  })
  .meta({
    description:
      'The progress log the agent keeps (PROGRESS.md) and the archiving that keeps it short (docs/guide/spec.md).',
  });

const names = (what: string) => z.array(z.string().min(1)).default([]).meta({ description: what });

/** `skills.overrides.<name>`: one discovered skill changed by the config (ralph-orchestrator's SkillOverride). */
const skillOverrideSchema = z
  .strictObject({
    enabled: z.boolean().optional().meta({
      description: '`false`: the skill is dropped: neither listed in the prompt nor loadable.',
    }),
    hats: names(
      "Only these hats' prompts list the skill (replaces the skill file's `hats`). Empty: the file's own.",
    ),
    backends: names(
      "Only iterations on these backends list the skill (replaces the file's `backends`). Empty: the file's own.",
    ),
    tags: names("The skill's tags, shown by `ralph tools skill list` (replaces the file's `tags`)."),
    auto_inject: z.boolean().optional().meta({
      description:
        "`true`: the skill's whole text goes into every prompt that lists it (within 8 KB), not just its line in the list.",
    }),
  })
  .meta({ description: 'What the config changes of the skill of this name (a name no skill has: nothing).' });

/** `skills`: SKILL.md files listed in the prompt and loaded on demand (`ralph tools skill load NAME`). */
export const skillsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).meta({
      description: '`false`: no skill is listed in the prompt, and `ralph tools skill` finds none.',
    }),
    dirs: z
      .array(z.string().min(1))
      .default([])
      .meta({
        description:
          'Directories of skills: each `NAME.md` in one, and each `NAME/SKILL.md`, is a skill (its front matter `name` and `description`). Relative to the workspace, else to the nearest parent directory that has it. A later directory’s skill replaces an earlier one of the same name.',
        examples: [['.claude/skills'], ['.ralph/skills', '../shared/skills']],
      }),
    overrides: z
      .record(z.string().min(1).meta({ title: 'skill' }), skillOverrideSchema)
      .default({})
      .meta({
        description: 'Per skill, by name: drop it, restrict it to hats or backends, or inject it whole.',
        examples: [{ pdd: { enabled: false }, 'test-driven-development': { hats: ['builder'] } }],
      }),
  })
  .meta({
    description:
      "Skills (ralph-orchestrator's `skills:`): markdown files the prompt lists by name and one-line description, which the agent prints with `ralph tools skill load NAME` when one applies. Absent: no skills, and the prompt has no skills section.",
    examples: [{ dirs: ['.claude/skills'] }],
  });

export type SkillsConfig = z.output<typeof skillsSchema>;
