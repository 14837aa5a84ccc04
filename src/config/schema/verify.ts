import { z } from 'zod';
import { backendName, PATH_PATTERNS_LINK, pathPatterns, positive, positiveInt } from './values.ts';

/** `completion`: what must hold before a run completes, besides the promise. */
export const completionSchema = z
  .strictObject({
    marker: z
      .strictObject({
        file: z.string().min(1).meta({ description: 'The file Ralph reads, relative to the workspace.' }),
        text: z
          .string()
          .min(1)
          .meta({ description: 'The text that, contained in the file, completes the run.' }),
      })
      .optional()
      .meta({
        description:
          'Complete when this file contains this text, checked by Ralph after every iteration (and at start).',
        examples: [{ file: 'STATUS.md', text: 'ALL DONE' }],
      }),
    checklist: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          'A design document with `## Milestone N: …` sections and `- [ ]` tasks, parsed by Ralph (the `checklist` preset).',
        examples: ['DESIGN.md'],
      }),
    condition: z.enum(['all_tasks', 'milestone', 'promise']).optional().meta({
      description:
        "With a checklist: `all_tasks` (every task checked), `milestone` (the current one), or `promise` (the agent's last line). Absent: `all_tasks`. With `tasks.source: prd.json` and no checklist, `all_tasks` also completes the run once every story passes and no task is open, without the promise.",
    }),
    promise: z.string().min(1).optional().meta({
      description: 'The promise for `condition: promise`. Absent: `event_loop.completion_promise`.',
    }),
    require_work: z.boolean().optional().meta({
      description:
        'Refuse completion until the run changed a file or made a commit. Absent: the value of `git.commit`.',
    }),
  })
  .meta({ description: 'Conditions a run must meet to complete, besides the completion promise.' });

/** Where a run waits for a human's approval (`gates.approval`). */
export const APPROVAL_POINTS = ['before_commit', 'before_push', 'before_complete'] as const;

/** `gates`: the checks after each iteration. */
export const gatesSchema = z
  .strictObject({
    validate: z
      .union([z.string().min(1), z.literal(false)])
      .optional()
      .meta({
        description:
          'Command run after each iteration (`sh -c`, in the workspace); a non-zero exit is fatal. Absent: run `.ralph/validate.sh` when it exists and is executable; `false` turns that off.',
        examples: ['npm run lint'],
      }),
    validate_timeout_seconds: positive
      .default(600)
      .meta({ description: 'Seconds the validate command may run.' }),
    tests: z
      .strictObject({
        command: z
          .string()
          .min(1)
          .meta({ description: 'The test command (`sh -c`, in the workspace).', examples: ['npm test'] }),
        timeout_seconds: positive.default(300).meta({ description: 'Seconds the test command may run.' }),
        report_file: z.string().min(1).optional().meta({
          description: 'A markdown report of each test run is written here. Absent: no report file.',
        }),
        affected: z
          .string()
          .min(1)
          .refine((c) => /\{(files|tests)\}/.test(c), {
            message:
              'must contain {files} (the changed files) or {tests} (the test files they map to), e.g. "npx vitest related --run --passWithNoTests {files}"',
          })
          .optional()
          .meta({
            description:
              "Runs only the tests related to the iteration's changed files (`sh -c`, in the workspace): `{files}` becomes the changed files (from git since the iteration started, untracked included; outside git, from the workspace fingerprint), `{tests}` the test files they map to (`test_<name>.py` conventions, docs/concepts/verification.md), each quoted as one argument. No changed file: skipped, and the record says so. `command` still runs before any completion, before a merge in `--parallel`, every `full_every` iterations, and when files were deleted. Absent: `command` after every iteration.",
            examples: [
              'npx vitest related --run --passWithNoTests {files}',
              'npx jest --findRelatedTests --passWithNoTests {files}',
              'pytest -q {tests}',
            ],
          }),
        full_every: positiveInt.optional().meta({
          description:
            'With `affected`: the full `command` also runs on every iteration whose number is a multiple of this. Absent: only before completion (and merges).',
          examples: [5],
        }),
      })
      .refine((t) => t.full_every === undefined || t.affected !== undefined, {
        message: 'full_every needs gates.tests.affected (without it the full command runs every iteration)',
        path: ['full_every'],
      })
      .optional()
      .meta({
        description:
          "The project's tests, run after each iteration: the result is recorded and published as `tests.passed` / `tests.failed`; completion is refused while they fail. Absent: no test gate.",
      }),
    protect: pathPatterns.optional().meta({
      description: `Files the agent must not change (${PATH_PATTERNS_LINK}), on top of what is always protected: \`.ralph/validate.sh\`, CI configs and the files the test and validate commands name (a \`!\` pattern here cannot take those back). Hashed on disk at run start, git-ignored files included (what the agent does to git hides no change) (a pattern that selects no file is warned about); an iteration that touches one is \`gate_tampered\`: not committed, a failed iteration, and its gates run from the protected content. \`.git\`, \`node_modules\` and Ralph's runtime files under \`.ralph/\` are never protected.`,
      examples: [['test/', '!test/fixtures/']],
    }),
    review: z
      .strictObject({
        backend: backendName.meta({
          description: 'The reviewing backend (`custom` only when it is `cli.backend`).',
        }),
        prompt_file: z.string().min(1).optional().meta({
          description: "The reviewer's prompt file. Absent: Ralph's built-in review prompt.",
        }),
        when: z.enum(['complete', 'every']).default('complete').meta({
          description: '`complete`: review before completion is accepted; `every`: after every iteration.',
        }),
        max_rounds: positiveInt.default(3).meta({
          description: 'Reviews in a row that request changes before the run stops as `review_unresolved`.',
        }),
      })
      .optional()
      .meta({
        description:
          'A second opinion: another backend reviews the diff since the run started against the task. Absent: no review.',
        examples: [{ backend: 'codex', when: 'complete' }],
      }),
    approval: z
      .union([z.enum(APPROVAL_POINTS), z.array(z.enum(APPROVAL_POINTS))])
      .optional()
      .meta({
        description:
          'Review points (one, or a list) where the run waits for `ralph approve` / `ralph reject "why"` (docs/operations/human-in-the-loop.md). Absent: none.',
        examples: [['before_push']],
      }),
    on_failure: z
      .enum(['keep', 'rollback'])
      .default('keep')
      .meta({
        description:
          "What happens to an iteration's changes when its gates fail (the tests, or the validate hook). `keep`: they stay in the work tree (committed with `git.commit`, the tests marked failing). `rollback`: they are committed to the rescue ref `refs/ralph/rescue/<run>/<iteration>` (nothing is lost; `ralph rescue list|show|apply`), the work tree returns to the last commit whose gates passed, and the next prompt says what was rolled back and why. Needs a git repository with a commit (docs/concepts/rollback-and-rules.md).",
        examples: ['rollback'],
      }),
  })
  .meta({
    description:
      'Checks run after each iteration: the validate hook, tests, protected files, review, approvals, what a failure does.',
  });

/** `rules`: which paths an iteration may change, and which need a person (checked by Ralph after it). */
export const rulesSchema = z
  .strictObject({
    allow: pathPatterns.optional().meta({
      description: `The only paths an iteration may change (${PATH_PATTERNS_LINK}); a change elsewhere is a \`rule_violation\`. Absent: every path.`,
      examples: [['src/', 'test/']],
    }),
    deny: pathPatterns.optional().meta({
      description: `Paths an iteration must not change (${PATH_PATTERNS_LINK}); a change there is a \`rule_violation\`. With \`claude\`, the globs its permission rules read the same way are also refused by the CLI itself (\`Edit(//<workspace>/<glob>)\` in \`--disallowedTools\`; docs/concepts/rollback-and-rules.md). Absent: none.`,
      examples: [['.env*', 'secrets/']],
    }),
    approve: pathPatterns.optional().meta({
      description: `Paths whose change waits for \`ralph approve\` / \`ralph reject "why"\` (${PATH_PATTERNS_LINK}); rejected, the iteration is rolled back. Absent: none.`,
      examples: [['package.json', '**/migrations/**', '.github/**']],
    }),
  })
  .meta({
    description:
      "Path rules, checked by Ralph on each iteration's changed files whatever the agent did: what git reports, plus every file on disk under the patterns' base directories, git-ignored and index-hidden ones included (hashed when the iteration starts and as its agent ends). A change outside `allow` or inside `deny` is rolled back (verdict `rule_violation`, kept in a rescue ref, the next prompt says which file and rule); one inside `approve` waits for a human. Needs git (docs/concepts/rollback-and-rules.md).",
    examples: [{ deny: ['.env*'], approve: ['package.json'] }],
  });

/** `health`: checks before each iteration. */
export const healthSchema = z
  .strictObject({
    enabled: z.boolean().default(true).meta({ description: '`false`: no health checks.' }),
    min_free_disk_mb: positive.default(1024).meta({
      description: 'Below this much free disk space (MB): a warning; none at all: fatal.',
    }),
    require_git: z.boolean().optional().meta({
      description:
        'Require the workspace to be a git repository (fatal when missing). Absent: the value of `git.commit`, and false with `repos` (each repository is checked instead).',
    }),
    specs_dir: z.string().min(1).optional().meta({
      description:
        'A directory that must be readable before each iteration (e.g. specs). Absent: not checked.',
    }),
  })
  .meta({ description: 'Health checks before each iteration: disk space, git, specs.' });

/** `git`: commit and push. */
export const gitSchema = z
  .strictObject({
    commit: z.boolean().default(false).meta({
      description: 'Commit what each successful iteration changed (`ralph: <task>` + details).',
    }),
    push: z.boolean().default(false).meta({
      description: 'Push the current branch after each commit, retried `push_attempts` times; then fatal.',
    }),
    remote: z.string().min(1).default('origin').meta({ description: 'The remote to push to.' }),
    push_attempts: positiveInt.default(3).meta({ description: 'Push attempts before the push is fatal.' }),
    push_retry_delay_seconds: z
      .number()
      .min(0)
      .default(5)
      .meta({ description: 'Seconds between push attempts.' }),
    require_clean: z.boolean().optional().meta({
      description: 'Refuse to start (or continue) with uncommitted changes. Absent: the value of `commit`.',
    }),
  })
  .meta({ description: 'Git integration: commit after each successful iteration, push with retries.' });
