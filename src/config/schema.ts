import { z } from 'zod';
import { cliSchema, eventLoopSchema } from './schema/event-loop.ts';
import { forgeSchema } from './schema/forge.ts';
import { hatSchema } from './schema/hats.ts';
import { hooksSchema } from './schema/hooks.ts';
import { metricSchema } from './schema/metric.ts';
import {
  fleetSchema,
  humanSchema,
  logsSchema,
  mergeSchema,
  notifySchema,
  robotSchema,
} from './schema/operations.ts';
import type { NOTIFY_KINDS } from './schema/operations-values.ts';
import {
  contextSchema,
  coreSchema,
  eventMetaSchema,
  memoriesSchema,
  progressSchema,
  skillsSchema,
  tasksSchema,
} from './schema/prompt.ts';
import { reposSchema } from './schema/repos.ts';
import { sandboxSchema } from './schema/sandbox.ts';
import { tddSchema } from './schema/tdd.ts';
import { positiveInt } from './schema/values.ts';
import {
  type APPROVAL_POINTS,
  completionSchema,
  gatesSchema,
  gitSchema,
  healthSchema,
  rulesSchema,
} from './schema/verify.ts';

export { AGENT_CLI_NAMES, type AgentCliName, BACKEND_NAMES, type BackendName } from './schema/values.ts';

/**
 * The schema of ralph.yml: zod, every key described (`.meta({description, examples})`), from which
 * `ralph config schema` and docs/reference/config.md are generated. `configSchema.parse(value)`
 * fills in every default and throws on an unknown key; `loadConfig` adds the file layers and
 * `file:line:col` to every problem.
 */
export const configSchema = z.strictObject({
  parallel: positiveInt.default(1).meta({
    description:
      'Workers of `ralph run` (as `--parallel N`, docs/guide/parallel.md): each takes one ready task in a git worktree of its own, and a merge queue brings finished tasks onto the current branch. 1: one loop, as usual.',
  }),
  merge: mergeSchema.default(mergeSchema.parse({})),
  event_loop: eventLoopSchema.default(eventLoopSchema.parse({})),
  cli: cliSchema.default(cliSchema.parse({})),
  hats: z
    .record(z.string().min(1).meta({ title: 'hat' }), hatSchema)
    .default({})
    .meta({
      description:
        'Hats by id: each iteration the first hat whose trigger matches a pending event runs (events from real progress win over `task.resume` and start events). No hats: solo mode.',
    }),
  tasks: tasksSchema.default(tasksSchema.parse({})),
  memories: memoriesSchema.default(memoriesSchema.parse({})),
  RObot: robotSchema.default(robotSchema.parse({})),
  core: coreSchema.default(coreSchema.parse({})),
  completion: completionSchema.default(completionSchema.parse({})),
  context: contextSchema.default(contextSchema.parse({})),
  progress: progressSchema.default(progressSchema.parse({})),
  tdd: tddSchema.optional(),
  gates: gatesSchema.default(gatesSchema.parse({})),
  rules: rulesSchema.optional(),
  metric: metricSchema.optional(),
  health: healthSchema.default(healthSchema.parse({})),
  git: gitSchema.default(gitSchema.parse({})),
  repos: reposSchema,
  forge: forgeSchema.default(forgeSchema.parse({})),
  events: z
    .record(z.string().min(1).meta({ title: 'topic' }), eventMetaSchema)
    .default({})
    .meta({ description: 'What the prompt says about event topics, by topic.' }),
  human: humanSchema.default(humanSchema.parse({})),
  notify: notifySchema.default(notifySchema.parse({})),
  fleet: fleetSchema.default(fleetSchema.parse({})),
  logs: logsSchema.default(logsSchema.parse({})),
  sandbox: sandboxSchema.default('off'),
  hooks: hooksSchema.default(hooksSchema.parse({})),
  skills: skillsSchema.optional(),
});

/** The fully resolved configuration (every default filled in). */
export type RalphConfig = z.output<typeof configSchema>;
export type RalphConfigInput = z.input<typeof configSchema>;
/** One hat of `hats:` as resolved (triggers, publishes, instructions, its backend), defaults filled in. */
export type HatConfig = z.output<typeof hatSchema>;
export type ApprovalPointName = (typeof APPROVAL_POINTS)[number];
export type NotifyKind = (typeof NOTIFY_KINDS)[number];
