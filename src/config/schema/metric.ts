import { z } from 'zod';
import { positive, positiveInt } from './values.ts';

/** `metric`: the metric loop (`--preset optimize`, docs/guide/optimize.md). */
export const metricSchema = z
  .strictObject({
    command: z
      .string()
      .min(1)
      .meta({
        description:
          'The benchmark, run with `sh -c` in the workspace after each iteration (and once at run start for the baseline); the number is read from its standard output.',
        examples: ['node bench.js', 'python train.py --eval-only'],
      }),
    direction: z.enum(['min', 'max']).meta({
      description: '`min`: lower is better (time, loss, size); `max`: higher is better (score, throughput).',
    }),
    pattern: z
      .string()
      .min(1)
      .refine(
        (p) => {
          try {
            return new RegExp(`${p}|`).exec('')!.length === 2;
          } catch {
            return false;
          }
        },
        { message: 'must be a valid regular expression with exactly one capture group (the number)' },
      )
      .optional()
      .meta({
        description:
          'A regular expression with one capture group for the number; the last match in the output counts. Give `pattern` or `json_path`, not both.',
        examples: ['time: ([0-9.]+) ms', 'accuracy=([0-9.]+)'],
      }),
    json_path: z
      .string()
      .regex(/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*|\[\d+\])*$/, {
        message: 'must be a dotted path such as `results.mean` or `runs[0].ms`',
      })
      .optional()
      .meta({
        description: 'The number as a path into the JSON the command prints (`results.mean`, `runs[0].ms`).',
        examples: ['results.mean'],
      }),
    repeats: positiveInt.max(20).default(3).meta({
      description:
        'Measurements per result; their median is the value and their spread (max − min) the noise an improvement must beat.',
    }),
    min_improvement: z.number().min(0).default(0).meta({
      description:
        'An improvement over the best so far must also be larger than this (in the metric’s units).',
    }),
    target: z.number().optional().meta({
      description:
        'Stop `metric_target` (exit 0) once the best value reaches it (≤ with `min`, ≥ with `max`).',
    }),
    patience: positiveInt.optional().meta({
      description:
        'Stop `metric_patience` (exit 2) after this many attempts in a row that were not kept. Absent: no such limit.',
    }),
    timeout_seconds: positive.default(600).meta({ description: 'Seconds one measurement may run.' }),
  })
  .refine((m) => (m.pattern === undefined) !== (m.json_path === undefined), {
    message:
      'give exactly one of metric.pattern or metric.json_path: how Ralph reads the number from the output',
  })
  .meta({
    description:
      'Keep a change only when it improves a measured number: each iteration is measured `repeats` times; a commit that does not beat the best so far by more than the noise and `min_improvement` is rolled back (its rescue ref keeps it). Needs a git repository.',
  });

export type MetricConfig = z.output<typeof metricSchema>;
