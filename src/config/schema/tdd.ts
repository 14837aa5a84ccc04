import { z } from 'zod';
import { PATH_PATTERNS_LINK, pathPatterns, positiveInt } from './values.ts';

/** The sections a TDD report must have unless `tdd.required_sections` says otherwise. */
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

/** `tdd`: the TDD state loop (seed 004). */
export const tddSchema = z
  .strictObject({
    state_file: z.string().min(1).default('loop/state.md').meta({
      description:
        'Goal / Current task / Constraints, plus the history Ralph appends. A corrupted file is restored from the last good copy (what it replaced is kept under `.ralph/tdd/`); an unfilled one stops the run at start.',
    }),
    report_file: z.string().min(1).default('loop/last_output.md').meta({
      description: "The agent's report of each iteration; Ralph checks its required sections.",
    }),
    required_sections: z
      .array(z.string().min(1))
      .default([...TDD_REPORT_SECTIONS])
      .meta({
        description: 'Sections the report must have; what is missing is reported to the next iteration.',
      }),
    report_misses_before_failure: positiveInt.default(2).meta({
      description: 'A report missing sections this many iterations in a row counts as a failed iteration.',
    }),
    stuck_iterations: positiveInt.default(50).meta({
      description: 'The same failing tests this many iterations in a row stop the loop as `stuck`.',
    }),
    archive_after: positiveInt.default(100).meta({
      description: 'Move old reports to `archive_dir` every this many iterations.',
    }),
    archive_dir: z
      .string()
      .min(1)
      .default('loop/archive')
      .meta({ description: 'Where old reports are archived.' }),
    allowed_paths: pathPatterns.default([]).meta({
      description: `Paths the agent may change (${PATH_PATTERNS_LINK}); a file changed elsewhere is recorded as a \`scope_violations\` entry of the iteration record. Empty: no check.`,
      examples: [['src', 'test/**/*.spec.ts']],
    }),
  })
  .meta({
    description:
      'The TDD state loop (preset `tdd`): a state file, a checked report per iteration, stuck detection. Present only in configs that use it.',
  });
