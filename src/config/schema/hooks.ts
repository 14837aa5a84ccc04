import { z } from 'zod';
import { HOOK_ON_ERROR, HOOK_PHASE_EVENTS, HOOK_SUSPEND_MODES } from './operations-values.ts';
import { positiveInt } from './values.ts';

export { HOOK_ON_ERROR, HOOK_PHASE_EVENTS, HOOK_SUSPEND_MODES };

const suspendMode = z.enum(HOOK_SUSPEND_MODES).meta({
  description:
    '`wait_for_resume`: the loop pauses until `ralph resume`, then goes on. `retry_backoff`: the hook runs again after 0.1, 0.2 and 0.4 s; still failing, the loop pauses until `ralph resume`. `wait_then_retry`: the loop pauses until `ralph resume`, then the hook runs once more (failing again, it pauses again).',
});

const mutateSchema = z
  .strictObject({
    enabled: z.boolean().default(false).meta({
      description:
        'Read the hook\'s standard output as `{"metadata": {…}}`: the object is kept under `metadata.accumulated.hook_metadata.<name>` of every later hook\'s payload. Anything else on stdout is an error of the hook (its `on_error`).',
    }),
    format: z.literal('json').optional().meta({ description: 'The only format: `json`.' }),
  })
  .refine((m) => m.enabled || m.format === undefined, {
    message: 'mutation settings require mutate.enabled: true',
  })
  .meta({ description: 'Opt-in metadata mutation (docs/operations/hooks.md#metadata-mutation).' });

/** One hook of a phase-event: an argv command, its limits and what its failure does. */
export const hookSpecSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1)
      .meta({ description: "The hook's name: in its events, the run log and `mutate`'s namespace." }),
    command: z
      .array(z.string())
      .min(1)
      .refine((argv) => (argv[0] ?? '').trim() !== '', { message: 'command[0] must name an executable' })
      .meta({
        description:
          "The argv: `command[0]` is the executable (a path with `/` is read from `cwd`; a bare name from PATH), no shell. It gets the phase-event's payload as JSON on stdin.",
        examples: [['./scripts/hooks/env-guard.sh', '--check']],
      }),
    cwd: z.string().min(1).optional().meta({
      description: 'Where it runs: relative to the workspace, or absolute (default: the workspace).',
    }),
    env: z.record(z.string(), z.string()).default({}).meta({
      description:
        "More environment variables, on top of Ralph's environment and the run's RALPH_* variables.",
    }),
    timeout_seconds: positiveInt.optional().meta({
      description: 'Its process group is killed past this (default: hooks.defaults.timeout_seconds).',
    }),
    max_output_bytes: positiveInt.optional().meta({
      description: 'Output of each stream kept, its last part (default: hooks.defaults.max_output_bytes).',
    }),
    on_error: z
      .enum(HOOK_ON_ERROR, {
        error: (issue) =>
          issue.input === undefined
            ? 'is required (as in ralph-orchestrator): warn, block or suspend'
            : undefined,
      })
      .meta({
        description:
          'When it exits non-zero, times out, cannot start or prints bad `mutate` output: `warn` (a warning; the loop goes on), `block` (the run stops at this phase, exit 1) or `suspend` (the loop waits by `suspend_mode`). Required.',
      }),
    suspend_mode: suspendMode.optional(),
    mutate: mutateSchema.default({ enabled: false }),
  })
  .refine((h) => h.suspend_mode === undefined || h.on_error === 'suspend', {
    message: 'suspend_mode requires on_error: suspend',
    path: ['suspend_mode'],
  });

/** `hooks`: ralph-orchestrator's lifecycle hooks (docs/operations/hooks.md). */
export const hooksSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .meta({ description: 'Run the hooks below (off: they are only checked).' }),
    defaults: z
      .strictObject({
        timeout_seconds: positiveInt.default(30).meta({ description: "A hook's time limit, seconds." }),
        max_output_bytes: positiveInt.default(8192).meta({ description: 'Output kept per stream, bytes.' }),
        suspend_mode: suspendMode.default('wait_for_resume'),
      })
      .default({ timeout_seconds: 30, max_output_bytes: 8192, suspend_mode: 'wait_for_resume' })
      .meta({ description: 'What a hook that does not say gets.' }),
    events: z
      .partialRecord(z.enum(HOOK_PHASE_EVENTS), z.array(hookSpecSchema))
      .default({})
      .meta({
        description: 'The hooks of each phase-event, run one after another in this order.',
        examples: [
          {
            'pre.loop.start': [
              { name: 'env-guard', command: ['./scripts/hooks/env-guard.sh'], on_error: 'block' },
            ],
          },
        ],
      }),
  })
  .meta({
    description:
      "Lifecycle hooks in ralph-orchestrator's format (docs/operations/hooks.md): your commands at the loop's phase-events, outside any sandbox, under the run's limits. `ralph hooks validate` checks them.",
  });

export type HookPhaseEvent = (typeof HOOK_PHASE_EVENTS)[number];
export type HookSpec = z.output<typeof hookSpecSchema>;
export type HooksConfig = z.output<typeof hooksSchema>;
